/** Drives the real `svc` bin as a child process against a real daemon in a temp home. */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');
export const SVC_BIN = join(ROOT, 'packages/cli/bin/svc.js');

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `svc --home <home> …args`; never throws on a non-zero exit, the test reads `code`. */
export function svc(
  home: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
): Promise<Run> {
  return new Promise((done, fail) => {
    execFile(
      process.execPath,
      [SVC_BIN, '--home', home, ...args],
      {
        cwd: ROOT,
        env: {
          ...process.env,
          NO_COLOR: '1',
          SVC_HOME: '',
          SVC_BASE_URL: '',
          SVC_TOKEN: '',
          ...env,
        },
        timeout: 30_000,
        maxBuffer: 16 * 1024 * 1024,
      },
      (err, stdout, stderr) => {
        const code = err ? (err as { code?: unknown }).code : 0;
        if (typeof code !== 'number') return fail(err);
        done({ code, stdout, stderr });
      },
    );
  });
}

/** `svc --json …` that must succeed; answers the parsed stdout. */
export async function svcJson<T = Record<string, unknown>>(
  home: string,
  args: readonly string[],
): Promise<T> {
  const result = await svc(home, ['--json', ...args]);
  if (result.code !== 0) {
    throw new Error(`svc ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  }
  return JSON.parse(result.stdout) as T;
}

/** A short home under /tmp: the unix socket path must stay under about 104 bytes. */
export function tempHome(): string {
  return mkdtempSync('/tmp/svc-e2e-');
}

/** Stops whatever daemon still runs on `home` (SIGKILL if it will not go), then deletes the home. */
export async function cleanupHome(home: string): Promise<void> {
  const pid = lockPid(home);
  if (pid !== undefined && alive(pid)) {
    await svc(home, ['daemon', 'stop']).catch(() => undefined);
    if (alive(pid)) process.kill(pid, 'SIGKILL');
  }
  rmSync(home, { recursive: true, force: true });
}

export function lockPid(home: string): number | undefined {
  try {
    return (JSON.parse(readFileSync(join(home, 'daemon.lock'), 'utf8')) as { pid: number }).pid;
  } catch {
    return undefined;
  }
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A killed child nobody reaped yet is not running.
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

/** Waits for `check` to hold, polling every 25 ms, for at most `ms`. */
export async function until(check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Every failure is exactly one line on stderr starting with `svc: `. */
export function oneErrorLine(run: Run): string {
  const lines = run.stderr.split('\n').filter((line) => line !== '');
  if (lines.length !== 1 || !lines[0]?.startsWith('svc: ')) {
    throw new Error(`expected one 'svc: …' line on stderr, got: ${JSON.stringify(run.stderr)}`);
  }
  return lines[0];
}
