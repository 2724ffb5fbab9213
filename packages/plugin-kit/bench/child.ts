/// <reference types="node" />
// A benchmark server in a process of its own (bench/serve.ts), as `npm run bench` and
// `bench:instructions` start one per variant.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { LoadSpec } from './load.ts';

/** What bench/serve.ts prints once it listens: the request to load it with. */
export type Served = Pick<LoadSpec, 'url' | 'method' | 'headers' | 'body' | 'tokensFile'>;

export type Child = { process: ChildProcess; served: Served; stop(): Promise<void> };

/** How long a server may take to print its line: minting and valgrind's start included. */
const START_TIMEOUT_MS = 120_000;
/** How long a stopped server may take to exit before it is killed. */
const STOP_GRACE_MS = 5_000;

/**
 * Starts `command args…`, which must print a `Served` line, and resolves once it has; rejects,
 * with the child stopped, if it cannot start, exits, prints something else or takes too long.
 */
export async function startServer(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<Child> {
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  // A command that cannot be started emits 'error' and never 'exit'.
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', () => resolve());
  });
  const stop = async () => {
    if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGINT');
    const killer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    await exited;
    clearTimeout(killer);
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const served = await new Promise<Served>((resolve, reject) => {
      const fail = (why: string) => reject(new Error(`${command} ${why}:\n${stderr}`));
      timer = setTimeout(() => fail(`printed nothing in ${START_TIMEOUT_MS} ms`), START_TIMEOUT_MS);
      child.once('error', (error) => fail(`could not start (${error.message})`));
      const lines = createInterface({ input: child.stdout! });
      lines.on('line', (line) => {
        if (!line.startsWith('{')) return;
        try {
          resolve(JSON.parse(line) as Served); // before `close`, which rejects if nothing came
        } catch {
          fail(`printed a line that is not JSON: ${line}`);
        }
        lines.close();
        child.stdout?.resume(); // what it prints later is read and dropped, never left to block it
      });
      lines.on('close', () => fail('exited before listening'));
    });
    return { process: child, served, stop };
  } catch (error) {
    await stop();
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The CPU time a process has used so far, user and system, in µs, from /proc (Linux); `null`
 * where there is none. Its resolution is a clock tick (10 ms), fine for slices of a second.
 */
export function cpuMicros(pid: number): number | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // proc(5): the fields after the command name, which is in parentheses and may hold spaces;
  // utime and stime are the 14th and 15th fields of the line, in clock ticks of 1/100 s.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}
