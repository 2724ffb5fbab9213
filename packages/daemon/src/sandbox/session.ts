/**
 * One sandbox per node, reused by its commands. Making a sandbox (namespaces, a few dozen
 * mounts, control groups) costs several milliseconds; a node runs many commands under one plan,
 * so its broker makes the sandbox once, with a small executor inside (executor.c, built on first
 * need: executor-build.ts; else the broker's own Node binary running session-executor.ts, both
 * bound read-only), and each command is then a spawn in there: its own process group,
 * the environment it is given, killed as a group at its timeout or cancel. What a command sees
 * is the same as a sandbox of its own would show, but that `/tmp` lasts the sandbox's life, and
 * a process a command moved to a session of its own (`setsid`) lives until the sandbox ends;
 * what stays in the command's process group is killed when its shell exits, as a sandbox of its
 * own would end it.
 */
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { ApiError } from '../errors.ts';
import { bwrapSpawn, type SandboxedSpawn, shellArgv, shownByBind } from './command.ts';
import { nativeExecutor, nativeLauncherOf } from './executor-build.ts';
import { commandFrame, type ExecutorEvent, frameReader, killFrame } from './executor-wire.ts';
import { launcherAt } from './launcher.ts';
import type { SandboxPlan } from './plan.ts';
import { privateTmp } from './private-tmp.ts';
import { PROXY_SOCKET_IN_SANDBOX, startProxy } from './proxy.ts';
import { childChannel, launchedChannel, type SessionChannel } from './session-channel.ts';
import { NODE_EXECUTOR, NODE_EXECUTOR_PATH } from './session-executor.ts';

/** Where the C executor is bound in the sandbox. */
const NATIVE_EXECUTOR_PATH = '/run/svc/executor';

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
  /** Which executor runs its commands: the C one, or the Node fall-back. */
  readonly executor: 'native' | 'node';
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

/**
 * The hidden paths that exist now, as one string to compare: those a bind shows (the rest are
 * absent from the sandbox whether they exist or not), looked up at each command.
 */
function existingHides(hides: readonly string[]): string {
  return hides.filter((path) => existsSync(path)).join('\0');
}

/** The node's proxy on a socket in a directory of this process's own (0700). */
async function proxyFor(allow: readonly string[]) {
  const dir = mkdtempSync(join(privateTmp(), 'svc-proxy-'));
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
  const native = plan.host.executor === null ? null : await nativeExecutor(plan.host.executor);
  const launcher = await nativeLauncher(plan);
  if (native === null || unstartable.has(native)) return openWith(plan, onEnd, null, launcher);
  try {
    return await openWith(plan, onEnd, native, launcher);
  } catch (error) {
    // A sandbox that starts with the Node executor but not with the C one: the binary cannot
    // run there (a library the sandbox does not show, say). This process uses Node's from now.
    const session = await openWith(plan, onEnd, null, launcher);
    unstartable.add(native);
    warn(
      `the sandbox's C executor ${native} did not start (${(error as Error).message}), so this process's node sandboxes run the Node executor`,
    );
    return session;
  }
}

/** C executors that did not start in a sandbox where the Node one did. */
const unstartable = new Set<string>();

function warn(msg: string): void {
  process.stderr.write(
    `${JSON.stringify({ time: new Date().toISOString(), level: 'warn', pid: process.pid, msg })}\n`,
  );
}

/**
 * The launcher's binary, built on first need beside the executor's; `null` (this process then
 * starts its sandboxes itself) with no compiler, or with `SVC_SANDBOX_LAUNCHER=none`.
 */
async function nativeLauncher(plan: SandboxPlan): Promise<string | null> {
  if (plan.host.executor === null || process.env.SVC_SANDBOX_LAUNCHER === 'none') return null;
  const spec = nativeLauncherOf(plan.host.executor);
  return spec === null ? null : nativeExecutor(spec);
}

/** The sandbox with the C executor at `native` in it, or Node's (`null`). */
async function openWith(
  plan: SandboxPlan,
  onEnd: () => void,
  native: string | null,
  launcher: string | null,
): Promise<SandboxSession> {
  const proxy = typeof plan.network === 'object' ? await proxyFor(plan.network.allow) : null;
  // Before its mounts are decided: a secret made while it starts makes it stale at once.
  const hides = plan.layers
    .filter((l) => l.kind === 'hide' && shownByBind(plan, l.path))
    .map((l) => l.path);
  const hidesAtStart = existingHides(hides);
  const { jail, channel } = startExecutor(plan, proxy, native, launcher);
  const pending = new Map<number, Pending>();
  let next = 0;
  let dead: Error | null = null;
  let onReady: ((ok: boolean) => void) | undefined;
  const ready = new Promise<boolean>((resolve) => {
    onReady = resolve;
  });

  const reader = frameReader((event) => {
    if (event.kind === 'ready') onReady?.(true);
    else deliver(pending, event);
  });
  channel.onData((data) => {
    // What is no frame of the executor's is something in the sandbox writing to its channel:
    // the sandbox goes.
    if (!reader.push(data)) {
      channel.kill();
      ended('the sandbox of this node wrote what its executor never writes');
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
  channel.onEnd(ended);
  // Idle, the session holds no process open (the broker may exit, and the sandbox dies with
  // it: --die-with-parent); while a command runs, it does.
  const hold = (on: boolean) => channel.hold(on);

  if (!(await ready)) throw dead ?? new Error('the sandbox did not start');
  live = true;
  hold(false);
  return {
    executor: native === null ? 'node' : 'native',
    stale: () => dead !== null || existingHides(hides) !== hidesAtStart,
    close: () => channel.kill(),
    run(input, stop) {
      if (dead !== null) return Promise.reject(dead);
      const id = ++next;
      // The C executor sets the process bound itself between fork and exec (SVC_NPROC): one
      // exec per command, not `prlimit` and then the shell.
      const argv =
        native === null ? shellArgv(plan, input.command) : ['/bin/sh', '-c', input.command];
      const frame = commandFrame(id, { argv, cwd: input.cwd, env: input.env });
      if (typeof frame === 'string') {
        return Promise.reject(
          new ApiError('invalid_request', `the command could not start: ${frame}`),
        );
      }
      return new Promise<SessionResult>((resolve, reject) => {
        const kill = () => channel.write(killFrame(id));
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
        channel.write(frame);
        if (stop.aborted) kill();
      });
    },
  };
}

/**
 * The sandbox with its executor started in it (the C one at `native`, else Node's), and the
 * node's proxy bound in, if any: by the host's launcher at `launcher` when there is one (no fork
 * of this process), else by this process.
 */
function startExecutor(
  plan: SandboxPlan,
  proxy: { path: string } | null,
  native: string | null,
  launcher: string | null,
): { jail: SandboxedSpawn; channel: SessionChannel } {
  const executor =
    native === null
      ? {
          argv: [NODE_EXECUTOR_PATH, '--max-old-space-size=64', '-e', NODE_EXECUTOR],
          bind: { source: realpathSync(process.execPath), dest: NODE_EXECUTOR_PATH },
        }
      : { argv: [NATIVE_EXECUTOR_PATH], bind: { source: native, dest: NATIVE_EXECUTOR_PATH } };
  const jail = bwrapSpawn(plan, {
    argv: executor.argv,
    cwd: '/',
    // The executor's own: no mark, so what the supervisor finds by it is the commands alone.
    env: {
      PATH: '/usr/bin:/bin',
      HOME: plan.home,
      ...(proxy !== null && { SVC_PROXY_SOCKET: PROXY_SOCKET_IN_SANDBOX }),
      ...(native !== null && plan.host.prlimit !== null && { SVC_NPROC: String(plan.pids) }),
    },
    launcherEnv: {},
    group: `${process.pid}-session-${++sessions}`,
    extra: [
      executor.bind,
      ...(proxy === null
        ? []
        : [{ source: proxy.path, dest: PROXY_SOCKET_IN_SANDBOX, writable: true }]),
    ],
  });
  if (launcher !== null) {
    const launched = launcherAt(launcher).start({
      ...jail.direct,
      opens: jail.opens,
      env: jail.env,
    });
    return { jail, channel: launchedChannel(launched) };
  }
  let fds: number[];
  try {
    fds = jail.open();
  } catch (error) {
    void jail.done();
    throw error;
  }
  const child = spawn(jail.file, jail.args, {
    cwd: '/',
    env: jail.env,
    stdio: ['pipe', 'pipe', 'ignore', ...fds],
  }) as unknown as ChildProcessByStdio<Writable, Readable, null>;
  jail.spawned();
  return { jail, channel: childChannel(child) };
}

/** A command's output or end, from the executor, given to the command waiting on it. */
function deliver(pending: Map<number, Pending>, event: Exclude<ExecutorEvent, { kind: 'ready' }>) {
  const job = pending.get(event.id);
  if (job === undefined) return;
  if (event.kind === 'out') {
    (event.stream === 'stdout' ? job.out : job.err).push(event.data);
    return;
  }
  pending.delete(event.id);
  if (event.kind === 'failed') {
    job.reject(new ApiError('invalid_request', `the command could not start: ${event.message}`));
  } else {
    job.resolve({
      code: event.code,
      signal: event.signal,
      stdout: Buffer.concat(job.out),
      stderr: Buffer.concat(job.err),
    });
  }
}
