/// <reference types="node" />
// A benchmark server in a process of its own (bench/serve.ts), as `npm run bench` and
// `bench:instructions` start one per variant.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

/** What bench/serve.ts prints once it listens. */
export type Served = {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  tokensFile?: string;
};

export type Child = { process: ChildProcess; served: Served; stop(): Promise<void> };

/** Starts `command args…`, which must print a `Served` line, and resolves once it has. */
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
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
    await exited;
  };
  try {
    const served = await new Promise<Served>((resolve, reject) => {
      child.once('error', reject);
      const lines = createInterface({ input: child.stdout! });
      lines.on('line', (line) => {
        if (!line.startsWith('{')) return;
        resolve(JSON.parse(line) as Served); // before `close`, which rejects if nothing came
        lines.close();
      });
      lines.on('close', () => reject(new Error(`${command} exited before listening:\n${stderr}`)));
    });
    return { process: child, served, stop };
  } catch (error) {
    await stop();
    throw error;
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
