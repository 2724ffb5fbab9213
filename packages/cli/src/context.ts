import { existsSync } from 'node:fs';
import type { Svc } from '@svc/client';
import { type HomePaths, homePaths, resolveHome } from '@svc/protocol/home';
import type { Command } from 'commander';
import { CliError, EXIT, UsageError } from './errors.ts';
import { compileJq } from './output/jq.ts';
import { type Io, Printer } from './output/printer.ts';

/** One invocation of `svc`: where it writes and the exit code its command chose. */
export interface Runtime {
  io: Io;
  exitCode: number;
}

/** What every command handler gets: the resolved global options and the ways out. */
export interface Context {
  home: string;
  paths: HomePaths;
  out: Printer;
  io: Io;
  /** The local daemon through `@svc/client` over its unix socket; the CLI's only way in. */
  client(): Promise<Svc>;
}

interface GlobalOptions {
  home?: string;
  json?: boolean;
  jq?: string;
}

/**
 * Wraps a handler as a commander action: builds the context from the global options (which
 * commander accepts before or after the subcommand) and records the exit code it returns.
 */
export function action<Args extends unknown[]>(
  runtime: Runtime,
  handler: (ctx: Context, ...args: Args) => Promise<number | undefined>,
): (...args: unknown[]) => Promise<void> {
  return async (...args) => {
    const command = args.at(-1) as Command;
    const ctx = createContext(runtime.io, command.optsWithGlobals<GlobalOptions>());
    const code = await handler(ctx, ...(args.slice(0, -1) as Args));
    if (code !== undefined) runtime.exitCode = code;
  };
}

function createContext(io: Io, options: GlobalOptions): Context {
  const home = resolveHome(options.home ?? nonEmpty(io.env.SVC_HOME));
  const paths = homePaths(home);
  let client: Promise<Svc> | undefined;
  return {
    home,
    paths,
    io,
    out: new Printer(
      io,
      options.json === true,
      options.jq === undefined ? undefined : compileJq(options.jq),
    ),
    client() {
      client ??= connect(home, paths, io.env);
      return client;
    },
  };
}

/**
 * The daemon as the caller names it: `SVC_BASE_URL` (with `SVC_TOKEN`) reaches a daemon's TCP
 * listener; `SVC_TOKEN` alone acts as that token over the local socket, so an app or a run sees
 * what its grant allows; with neither, the local socket and the home's owner token.
 */
export async function connect(
  home: string,
  paths: HomePaths,
  env: NodeJS.ProcessEnv,
): Promise<Svc> {
  const baseUrl = nonEmpty(env.SVC_BASE_URL);
  const token = nonEmpty(env.SVC_TOKEN);
  if (baseUrl !== undefined) {
    // Both caught before anything is sent: usage errors (exit 2).
    if (token === undefined) {
      throw new UsageError('SVC_BASE_URL is set but SVC_TOKEN is not; set both, or neither');
    }
    const { Svc } = await import('@svc/client');
    try {
      return new Svc({ baseUrl, token });
    } catch (error) {
      throw new UsageError(`SVC_BASE_URL: ${(error as Error).message}`);
    }
  }
  // No socket means no daemon: say so at once instead of after the client's connection retries.
  if (!existsSync(paths.socket)) {
    throw new CliError(
      `the svc daemon is not running on ${home}; start it with: svc daemon start`,
      EXIT.notRunning,
    );
  }
  // Imported on demand: commands that never talk to the daemon start faster without it.
  const { localClient } = await import('./local-client.ts');
  return localClient(paths, token);
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
