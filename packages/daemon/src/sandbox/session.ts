/**
 * One sandbox per node, reused by its commands. Making a sandbox (namespaces, a few dozen
 * mounts, control groups) costs several milliseconds; a node runs many commands under one plan,
 * so its broker makes the sandbox once, with a small executor inside (the broker's own Node
 * binary, bound read-only), and each command is then a spawn in there: its own process group,
 * the environment it is given, killed as a group at its timeout or cancel. What a command sees
 * is the same as a sandbox of its own would show, but that `/tmp` lasts the sandbox's life, and
 * a process a command moved to a session of its own (`setsid`) lives until the sandbox ends;
 * what stays in the command's process group is killed when its shell exits, as a sandbox of its
 * own would end it.
 */
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { ApiError } from '../errors.ts';
import { bwrapSpawn, shellArgv } from './command.ts';
import type { SandboxPlan } from './plan.ts';
import { PROXY_PORT, PROXY_SOCKET_IN_SANDBOX, startProxy } from './proxy.ts';

/** Bytes of each stream a command's result keeps; one more tells it was cut. */
const KEEP = 1024 * 1024 + 1;
const EXECUTOR_PATH = '/run/svc/node';

// The executor: JSON lines in (a command, or a kill), JSON lines out (output chunks in base64,
// then the end). A command whose shell exited while something it left holds the pipes open is
// given 250 ms for the rest of its output, as `runBash` does.
const EXECUTOR = `
const { spawn } = require('node:child_process');
const jobs = new Map();
const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
let buf = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => {
  buf += d;
  for (let i = buf.indexOf('\\n'); i >= 0; i = buf.indexOf('\\n')) {
    const line = buf.slice(0, i);
    buf = buf.slice(i + 1);
    handle(JSON.parse(line));
  }
});
process.stdin.on('end', () => process.exit(0));
// A group is killed until none of it is left: a process forking while the signal goes round
// (a fork bomb) leaves nothing behind.
function killGroup(pid) {
  for (let i = 0; i < 1000; i++) {
    try { process.kill(-pid, 'SIGKILL'); } catch { return; }
  }
}
function handle(m) {
  if (m.kill !== undefined) {
    const job = jobs.get(m.kill);
    if (job) killGroup(job.pid);
    return;
  }
  let child;
  try {
    child = spawn(m.argv[0], m.argv.slice(1), { cwd: m.cwd, env: m.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  } catch (e) { send({ id: m.id, error: String(e && e.message) }); return; }
  jobs.set(m.id, child);
  const sent = [0, 0];
  const pipe = (stream, key, n) => stream.on('data', (c) => {
    if (sent[n] >= ${KEEP}) return;
    const part = c.subarray(0, ${KEEP} - sent[n]);
    sent[n] += part.length;
    send({ id: m.id, [key]: part.toString('base64') });
  });
  pipe(child.stdout, 'o', 0);
  pipe(child.stderr, 'e', 1);
  let done = false;
  const finish = (end) => { if (done) return; done = true; jobs.delete(m.id); send({ id: m.id, ...end }); };
  child.once('error', (e) => finish({ error: String(e && e.message) }));
  child.once('close', (code, signal) => finish({ code, signal }));
  child.once('exit', (code, signal) => {
    // What the command left running in its group ends with it, as in a sandbox of its own.
    killGroup(child.pid);
    const late = setTimeout(() => { child.stdout.destroy(); child.stderr.destroy(); finish({ code, signal }); }, 250);
    child.once('close', () => clearTimeout(late));
  });
}
const ready = () => send({ ready: true });
if (process.env.SVC_PROXY_SOCKET) {
  // The node's network is a list of domains: 127.0.0.1:${PROXY_PORT} leads to its proxy.
  const net = require('node:net');
  net.createServer((c) => {
    const u = net.connect(process.env.SVC_PROXY_SOCKET);
    c.pipe(u); u.pipe(c);
    c.on('error', () => u.destroy()); u.on('error', () => c.destroy());
  }).listen(${PROXY_PORT}, '127.0.0.1', ready);
} else ready();
`;

export interface SessionResult {
  code: number | null;
  signal: string | null;
  stdout: Buffer;
  stderr: Buffer;
}

interface Pending {
  out: Buffer[];
  err: Buffer[];
  resolve(result: SessionResult): void;
  reject(error: Error): void;
}

export interface SandboxSession {
  /**
   * Whether what the sandbox must hide has changed since it was made (a secret store made since,
   * say): then it is closed and another made, with the hides as they are now.
   */
  stale(): boolean;
  /** Ends the sandbox and everything in it. */
  close(): void;
  /** Runs `command` in `cwd` with exactly `env`; `stop` kills its process group. */
  run(
    input: { command: string; cwd: string; env: Record<string, string> },
    stop: AbortSignal,
  ): Promise<SessionResult>;
}

let sessions = 0;

/** Longer than any line the executor writes (an output chunk of 64 KiB, in base64, and JSON). */
const MAX_LINE = 1024 * 1024;

/** The hidden paths that exist now, as one string to compare. */
function existingHides(plan: SandboxPlan): string {
  return plan.layers
    .filter((l) => l.kind === 'hide' && existsSync(l.path))
    .map((l) => l.path)
    .join('\0');
}

/** The node's proxy on a socket in a directory of this process's own (0700). */
async function proxyFor(allow: readonly string[]) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-proxy-'));
  const path = join(dir, 'proxy.sock');
  const server = await startProxy(path, allow);
  return {
    path,
    close: () => {
      server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Starts the node's sandbox and its executor; resolves once it answers, or rejects (the caller
 * then makes a sandbox per command instead: slower, as confined).
 */
export async function openSession(
  plan: SandboxPlan,
  onEnd: () => void = () => {},
): Promise<SandboxSession> {
  const proxy = typeof plan.network === 'object' ? await proxyFor(plan.network.allow) : null;
  // Before its mounts are decided: a secret made while it starts makes it stale at once.
  const hidesAtStart = existingHides(plan);
  const jail = bwrapSpawn(plan, {
    argv: [EXECUTOR_PATH, '--max-old-space-size=64', '-e', EXECUTOR],
    cwd: '/',
    // The executor's own: no mark, so what the supervisor finds by it is the commands alone.
    env: {
      PATH: '/usr/bin:/bin',
      HOME: plan.home,
      ...(proxy !== null && { SVC_PROXY_SOCKET: PROXY_SOCKET_IN_SANDBOX }),
    },
    launcherEnv: {},
    group: `${process.pid}-session-${++sessions}`,
    extra: [
      { source: realpathSync(process.execPath), dest: EXECUTOR_PATH },
      ...(proxy === null
        ? []
        : [{ source: proxy.path, dest: PROXY_SOCKET_IN_SANDBOX, writable: true }]),
    ],
  });
  const child = spawn(jail.file, jail.args, {
    cwd: '/',
    env: jail.env,
    stdio: ['pipe', 'pipe', 'ignore', ...jail.fds],
  }) as unknown as ChildProcessByStdio<Writable, Readable, null>;
  jail.spawned();
  const pending = new Map<number, Pending>();
  let next = 0;
  let dead: Error | null = null;
  let onReady: ((ok: boolean) => void) | undefined;
  const ready = new Promise<boolean>((resolve) => {
    onReady = resolve;
  });

  let buf = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (data: string) => {
    buf += data;
    // The executor's lines are short (64 KiB of output at most, base64): a longer one is no
    // line of its, but something in the sandbox writing to its channel. The sandbox goes.
    if (buf.length > MAX_LINE) {
      buf = '';
      child.kill('SIGKILL');
      ended('the sandbox of this node wrote what its executor never writes');
      return;
    }
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      let m: {
        ready?: true;
        id?: number;
        o?: string;
        e?: string;
        code?: number | null;
        signal?: string | null;
        error?: string;
      };
      try {
        m = JSON.parse(line);
      } catch {
        continue;
      }
      if (m.ready) {
        onReady?.(true);
        continue;
      }
      const job = m.id === undefined ? undefined : pending.get(m.id);
      if (job === undefined) continue;
      if (m.o !== undefined) job.out.push(Buffer.from(m.o, 'base64'));
      else if (m.e !== undefined) job.err.push(Buffer.from(m.e, 'base64'));
      else {
        pending.delete(m.id!);
        if (m.error !== undefined) {
          job.reject(new ApiError('invalid_request', `the command could not start: ${m.error}`));
        } else {
          job.resolve({
            code: m.code ?? null,
            signal: m.signal ?? null,
            stdout: Buffer.concat(job.out),
            stderr: Buffer.concat(job.err),
          });
        }
      }
    }
  });
  let live = false;
  const ended = (why: string) => {
    // A tool error the model reads, not a fault of the node: the next command makes a new one.
    dead ??= new ApiError(
      'sandbox_unavailable',
      `${why} (its memory bound, or a kill); the next command starts it again`,
    );
    if (live) onEnd();
    onReady?.(false);
    proxy?.close();
    for (const job of pending.values()) job.reject(dead);
    pending.clear();
    void jail.done();
  };
  child.once('close', () => ended('the sandbox of this node ended'));
  child.once('error', (error) => ended(error.message));
  child.stdin.on('error', () => ended('the sandbox of this node ended'));
  // Idle, the session holds no process open (the broker may exit, and the sandbox dies with
  // it: --die-with-parent); while a command runs, it does.
  const stdout = child.stdout as Readable & { ref(): void; unref(): void };
  const hold = (on: boolean) => {
    if (on) {
      child.ref();
      stdout.ref();
    } else {
      child.unref();
      stdout.unref();
    }
  };

  if (!(await ready)) throw dead ?? new Error('the sandbox did not start');
  live = true;
  hold(false);
  return {
    stale: () => dead !== null || existingHides(plan) !== hidesAtStart,
    close: () => {
      child.kill('SIGKILL');
    },
    run(input, stop) {
      if (dead !== null) return Promise.reject(dead);
      const id = ++next;
      return new Promise<SessionResult>((resolve, reject) => {
        const kill = () => child.stdin.write(`${JSON.stringify({ kill: id })}\n`);
        stop.addEventListener('abort', kill, { once: true });
        const settle = () => {
          stop.removeEventListener('abort', kill);
          if (pending.size === 0) hold(false);
        };
        pending.set(id, {
          out: [],
          err: [],
          resolve: (r) => {
            settle();
            resolve(r);
          },
          reject: (e) => {
            settle();
            reject(e);
          },
        });
        hold(true);
        const argv = shellArgv(plan, input.command);
        child.stdin.write(`${JSON.stringify({ id, argv, cwd: input.cwd, env: input.env })}\n`);
        if (stop.aborted) kill();
      });
    },
  };
}
