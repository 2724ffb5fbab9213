/**
 * One node's agent loop inside an agent host (`./host.ts`), with everything of its own: its
 * abort, its control-plane port bound with its own node token, its viewer socket, its sandbox
 * session, its worktree as the commands' directory (passed down, never `process.chdir`), and log
 * lines tagged with its id. Nothing of one node's launch (token, model key, env values) is held
 * where another node's loop can reach it.
 *
 * `abort` is what SIGTERM was to a broker process: the model request stops, a running `bash` has
 * its process group killed at once, and the loop records what it cut short. `drop` is what
 * SIGKILL was: the port is destroyed so the loop records nothing more, the sandbox and viewers
 * close, and the node counts as ended at once, whatever its loop still unwinds.
 */
import type { brokerLaunchSchema } from '@svc/protocol';
import type { z } from 'zod';
import { createLanguageModel, type ScriptedTurn } from '../model-access/providers/index.ts';
import { runAgentLoop } from './agent-loop.ts';
import { createHttpBrokerPort } from './http-port.ts';
import type { LoopExit } from './loop-exit.ts';
import type { BrokerLoad, BrokerPort } from './port.ts';
import { closeSandbox, warmSandbox } from './tools/bash.ts';
import { toolsFor } from './tools/index.ts';
import { createViewerSocket } from './viewer-socket.ts';

export type NodeLog = (fields: Record<string, unknown>) => void;

export interface NodeLoop {
  readonly nodeId: string;
  /** Settles once the loop has ended and its parts are closed (never rejects). */
  readonly ended: Promise<LoopExit | undefined>;
  /** Cancel, interrupt or shutdown: the loop stops and records what it cut short. */
  abort(reason: string): void;
  /** The loop is cut off: nothing more is recorded, its sandbox and viewers close now. */
  drop(): Promise<void>;
  /**
   * Its env and sandbox plan made again (no plan: none it may use): the sandbox closes, with
   * whatever runs in it, and the next command, file tool and plugin call go by the new ones.
   */
  reconfine(parts: Pick<ParsedLaunch, 'env' | 'sandbox'>): void;
}

export type ParsedLaunch = z.output<typeof brokerLaunchSchema>;

export function startNodeLoop(launch: ParsedLaunch, log: NodeLog): NodeLoop {
  const { provider, model, api_key, base_url, script } = launch.model;
  const controller = new AbortController();
  const port = createHttpBrokerPort({
    socketPath: launch.socket_path,
    nodeId: launch.node_id,
    token: launch.token,
    // The node's worktree; a launch that names none runs where the host started.
    cwd: launch.cwd ?? process.cwd(),
    home: launch.home,
    sandbox: launch.sandbox,
  });
  const viewers =
    launch.viewer_socket_path === undefined
      ? null
      : createViewerSocket({ path: launch.viewer_socket_path });
  // The plan and env its tools go by now: the launch's, until the daemon sends others.
  let plan = launch.sandbox;
  const env: Record<string, string> = { ...launch.env };
  // The key, and env values long enough to be secrets (blanking a "1" would garble messages);
  // a value replaced since stays on it: it may still be in what a tool answered before.
  const secrets = [...(api_key === undefined ? [] : [api_key]), ...secretsOf(env)];
  // Viewers are served from the claim on, starting with the turns the node resumes from. The
  // node's sandbox is made while its claim is on the way: opening one waits on the kernel (its
  // namespaces, mounts and groups) far longer than it works, so its first command finds it made.
  // Its tools are known only from the claim: a node without `bash` has it closed then.
  const loopPort: BrokerPort = {
    ...port,
    async load() {
      // The sandbox first: it takes the longer, and its spawn holds this process's loop a moment.
      if (plan !== undefined) warmSandbox(plan);
      const loaded = await port.load();
      const session: BrokerLoad = {
        ...loaded,
        get sandbox() {
          return plan;
        },
      };
      if (
        plan !== undefined &&
        !toolsFor(session.node.scopes, session.tools).some((t) => t.name === 'bash')
      ) {
        void closeSandbox(plan);
      }
      await viewers?.listen(session.turns).catch((error: unknown) => {
        log({ msg: 'no viewer socket', error: (error as Error).message });
      });
      return session;
    },
  };
  let closing: Promise<void> | null = null;
  const closeParts = (exit?: LoopExit) => {
    closing ??= Promise.all([
      viewers?.close(exit),
      port.close(),
      plan === undefined ? undefined : closeSandbox(plan),
    ]).then(() => {});
    return closing;
  };

  const ended = (async () => {
    let exit: LoopExit | undefined;
    try {
      exit = await runAgentLoop({
        port: loopPort,
        model: createLanguageModel({
          provider,
          model,
          ...(api_key !== undefined && { apiKey: api_key }),
          ...(base_url !== undefined && { baseUrl: base_url }),
          // Parsed from JSON, so no member is `undefined`; the scripted model checks it again.
          ...(script !== undefined && { script: script as ScriptedTurn[] }),
        }),
        signal: controller.signal,
        env,
        secrets,
        ...(viewers !== null && { onEvent: (event) => viewers.publish(event) }),
      });
      log({ msg: 'loop ended', exit: exit.kind, reason: exit.reason });
    } catch (error) {
      log({ msg: 'loop failed', error: (error as Error).message });
    } finally {
      await closeParts(exit).catch(() => {});
    }
    return exit;
  })();

  return {
    nodeId: launch.node_id,
    ended,
    abort: (reason) => controller.abort(reason),
    drop() {
      controller.abort('the node was stopped');
      return closeParts().catch(() => {});
    },
    reconfine(next) {
      // In place: the plugin tools hold this object, and the redaction this list.
      for (const key of Object.keys(env)) delete env[key];
      Object.assign(env, next.env);
      secrets.push(...secretsOf(next.env));
      const old = plan;
      if (JSON.stringify(next.sandbox) === JSON.stringify(old)) return;
      plan = next.sandbox;
      if (old !== undefined) void closeSandbox(old);
      log({
        msg: 'sandbox closed: its plan changed (its profile), the next command makes it again',
      });
    },
  };
}

function secretsOf(env: Readonly<Record<string, string>>): string[] {
  return Object.values(env).filter((value) => value.length >= 8);
}
