import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type Io, run } from '../src/index.ts';

const BIN = fileURLToPath(new URL('../bin/svc.js', import.meta.url));

/** `svc …args` as a child process against `home`, with `input` on stdin and extra `env`. */
export function spawnSvc(
  home: string,
  args: string[],
  options: { input?: string; env?: Record<string, string> } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { ...process.env, SVC_HOME: home, NO_COLOR: '1', ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c;
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    // A child may refuse input it finds too large and exit before reading it all (EPIPE).
    child.stdin.on('error', () => {});
    child.stdin.end(options.input ?? '');
  });
}

/**
 * `svc …args` run in this process against the home `home()` names when it runs (a test file's
 * home is often made in `beforeAll`), no stdin, and `env()` added to its environment; answers the
 * exit code and the output.
 */
export function inProcessSvc(
  home: () => string,
  env: () => Record<string, string> = () => ({}),
): (...args: string[]) => Promise<{ code: number; stdout: string; stderr: string }> {
  return async (...args) => {
    let stdout = '';
    let stderr = '';
    const io: Io = {
      stdout: (text) => {
        stdout += text;
      },
      stderr: (text) => {
        stderr += text;
      },
      stdoutIsTTY: false,
      env: { SVC_HOME: home(), ...env() },
    };
    const code = await run(['node', 'svc', ...args], io);
    return { code, stdout, stderr };
  };
}
