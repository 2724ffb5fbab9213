// Starts an example as a real child process and waits for its `listening on <url>` line.
import { type ChildProcess, spawn } from 'node:child_process';

export type Spawned = { url: string; child: ChildProcess; stop(): Promise<void> };

export function spawnServer(
  command: string,
  args: string[],
  options: { cwd: string; env?: Record<string, string> },
): Promise<Spawned> {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      NO_COLOR: '1',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`${command} did not start in 15 s:\n${output}`));
    }, 15_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (!match) return;
      clearTimeout(timer);
      resolve({ url: match[1]!, child, stop });
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${command} exited with ${code} before listening:\n${output}`));
    });
  });
}
