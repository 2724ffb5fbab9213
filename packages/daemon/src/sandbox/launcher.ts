/**
 * An agent host's sandbox launcher: launcher.c, one per process that starts node sandboxes,
 * started on first need. Node's `spawn` forks the whole host (about 100 MB of page tables to
 * copy) and holds its event loop until the child has exec'd: about 5 ms a sandbox, every other
 * node of the host waiting meanwhile. The launcher forks from about 1 MB instead; the host only
 * writes it a frame, and the sandbox's executor reaches the host over a unix socket the host
 * listens on, in a directory of its own (0700), saying first the random token of its start.
 *
 * What starts there is what `bwrapSpawn` makes, in its `direct` form: the same bwrap argv, each
 * descriptor bwrap reads opened by the launcher's child as this process would open it for a
 * spawn of its own (descriptors.ts: a bind's handle checked to name its path), the command's
 * control groups joined before the exec. A start that fails (a bind's path changed meanwhile,
 * say) is refused, never run another way; the host opens none of them itself.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import type { Opened } from './descriptors.ts';
import { frame, HEADER, killFrame } from './executor-wire.ts';
import { privateTmp } from './private-tmp.ts';

const TOKEN_BYTES = 16;
/** A connection that has not said its token by then is not a sandbox's. */
const TOKEN_WAIT_MS = 10_000;
/**
 * A launcher with no sandbox this long ends (its host's next start begins another): a host
 * whose nodes all wait holds no process but itself, as its spares' lull is also 30 s.
 */
export const LAUNCHER_IDLE_MS = 30_000;

export interface LaunchStart {
  argv: string[];
  env: Record<string, string>;
  opens: Opened[];
  joins: string[];
}

export interface Launched {
  /** The sandbox's channel (its executor's stdin and stdout), once it connected. */
  readonly channel: Promise<Socket>;
  /** Kills its process (bwrap: the sandbox ends with it). */
  kill(): void;
}

interface Pending {
  token: string;
  connected: boolean;
  /** Its child said its token (`R`): the connection is queued at the socket, if not yet read. */
  reached: boolean;
  /** Its process ended (`X`) before this process read its connection. */
  ended: boolean;
  resolve(socket: Socket): void;
  reject(error: Error): void;
}

export interface Launcher {
  start(start: LaunchStart): Launched;
}

const launchers = new Map<string, Launcher>();

/** The launcher at `binary` of this process, started now unless running. */
export function launcherAt(binary: string, idleMs = LAUNCHER_IDLE_MS): Launcher {
  let launcher = launchers.get(binary);
  if (launcher === undefined) {
    const made = startLauncher(binary, idleMs, () => {
      if (launchers.get(binary) === made) launchers.delete(binary);
    });
    launcher = made;
    launchers.set(binary, launcher);
  }
  return launcher;
}

function startLauncher(binary: string, idleMs: number, onExit: () => void): Launcher {
  const dir = mkdtempSync(join(privateTmp(), 'svc-launch-'));
  const path = join(dir, 'launch.sock');
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  const pending = new Map<number, Pending>();
  const byToken = new Map<string, Pending>();
  let next = 0;
  let starting = 0;
  let dead: Error | null = null;

  const server: Server = createServer((socket) => accept(socket, byToken));
  server.listen(path);
  server.unref();
  const child: ChildProcess = spawn(binary, [path], { stdio: ['pipe', 'pipe', 'inherit'] });
  child.unref();
  const stdout = child.stdout as NonNullable<ChildProcess['stdout']> & { unref(): void };
  stdout.unref();
  (child.stdin as unknown as { unref?(): void }).unref?.();

  // With no sandbox left (every start's `X` heard), it ends after `idleMs`: its stdin closed,
  // and this process's next start makes another, taken out of the way at once.
  let idle: NodeJS.Timeout | null = null;
  const idleCheck = () => {
    if (idle !== null) clearTimeout(idle);
    idle = null;
    if (pending.size > 0 || dead !== null) return;
    idle = setTimeout(() => {
      onExit();
      child.stdin?.end();
    }, idleMs);
    idle.unref();
  };
  const end = (why: string) => {
    if (dead !== null) return;
    dead = new Error(why);
    if (idle !== null) clearTimeout(idle);
    onExit();
    server.close();
    removeDir();
    // One listener per launcher this process ran: a host's launchers come and go (idle exits).
    process.off('exit', removeDir);
    for (const p of pending.values()) p.reject(dead);
    pending.clear();
    byToken.clear();
  };
  child.once('error', (error) => end(`the sandbox launcher did not start: ${error.message}`));
  child.once('exit', (code, signal) =>
    end(`the sandbox launcher ended (${signal ?? `exit ${code}`})`),
  );
  child.stdin?.on('error', () => end('the sandbox launcher ended'));
  process.once('exit', removeDir);

  const forget = (id: number, p: Pending) => {
    pending.delete(id);
    byToken.delete(p.token);
    idleCheck();
  };

  let held: Buffer = Buffer.alloc(0);
  stdout.on('data', (data: Buffer) => {
    held = held.length === 0 ? data : Buffer.concat([held, data]);
    while (held.length >= HEADER) {
      const length = held.readUInt32LE(5);
      if (held.length < HEADER + length) break;
      const type = String.fromCharCode(held[0]!);
      const id = held.readUInt32LE(1);
      const body = held.subarray(HEADER, HEADER + length);
      held = held.subarray(HEADER + length);
      const p = pending.get(id);
      if (p === undefined) continue;
      if (type === 'R') {
        p.reached = true;
        continue;
      }
      if (type === 'F') {
        p.reject(new Error(`the sandbox could not start: ${body.toString('utf8')}`));
      } else if (type === 'X' && !p.connected && p.reached) {
        // A quick command can end before this loop has read its connection (the two come on
        // different descriptors): what it said waits there, so its channel still opens. Bounded
        // as a connection's token is: a connection that never comes is an end after all.
        p.ended = true;
        setTimeout(() => {
          if (p.connected || pending.get(id) !== p) return;
          p.reject(unreached());
          forget(id, p);
        }, TOKEN_WAIT_MS).unref();
        continue;
      } else if (type === 'X' && !p.connected) {
        p.reject(unreached());
      }
      if (type === 'F' || type === 'X') forget(id, p);
    }
  });

  return {
    start(start) {
      const id = ++next;
      const token = randomBytes(TOKEN_BYTES).toString('hex');
      let entry!: Pending;
      // While a start waits for its sandbox, it keeps this process running (as a spawned child
      // does); once it answered, its session says whether it does.
      if (starting++ === 0) server.ref();
      let answered = false;
      const settled = () => {
        if (answered) return;
        answered = true;
        if (--starting === 0) server.unref();
      };
      const channel = new Promise<Socket>((resolve, reject) => {
        entry = {
          token,
          connected: false,
          reached: false,
          ended: false,
          resolve: (socket) => {
            settled();
            resolve(socket);
            if (entry.ended) forget(id, entry);
          },
          reject: (error) => {
            settled();
            reject(error);
          },
        };
      });
      // Rejected with no one waiting yet is no crash: the caller awaits it.
      channel.catch(() => {});
      const request = startFrame(id, token, start);
      if (dead !== null || request === null) {
        entry.reject(dead ?? new Error('the sandbox could not start: a NUL byte in its start'));
        return { channel, kill: () => {} };
      }
      pending.set(id, entry);
      byToken.set(token, entry);
      idleCheck();
      child.stdin?.write(request);
      return {
        channel,
        kill: () => {
          if (dead === null) child.stdin?.write(killFrame(id));
        },
      };
    },
  };
}

const unreached = () => new Error('the sandbox ended before it reached its host');

/** A connection to the launcher's socket: the sandbox whose token it says first, or none. */
function accept(socket: Socket, byToken: Map<string, Pending>) {
  const want = TOKEN_BYTES * 2;
  let got: Buffer = Buffer.alloc(0);
  const timer = setTimeout(() => socket.destroy(), TOKEN_WAIT_MS);
  timer.unref();
  const onData = (data: Buffer) => {
    got = Buffer.concat([got, data]);
    if (got.length < want) return;
    socket.off('data', onData);
    socket.pause();
    clearTimeout(timer);
    const entry = byToken.get(got.subarray(0, want).toString('latin1'));
    if (entry === undefined || entry.connected) {
      socket.destroy();
      return;
    }
    entry.connected = true;
    byToken.delete(entry.token);
    if (got.length > want) socket.unshift(got.subarray(want));
    entry.resolve(socket);
  };
  socket.on('data', onData);
  socket.on('error', () => socket.destroy());
}

/**
 * `S`: the counts, then token, argv, env, opens (mode, path) and joins, each NUL-ended; `null`
 * when one holds a NUL byte (Node's `spawn` refuses it too).
 */
function startFrame(id: number, token: string, start: LaunchStart): Buffer | null {
  const env = Object.entries(start.env).map(([k, v]) => `${k}=${v}`);
  const strings = [
    token,
    ...start.argv,
    ...env,
    ...start.opens.flatMap((o) => [o.mode, o.path]),
    ...start.joins,
  ];
  if (strings.some((s) => s.includes('\0'))) return null;
  const counts = Buffer.alloc(16);
  counts.writeUInt32LE(start.argv.length, 0);
  counts.writeUInt32LE(env.length, 4);
  counts.writeUInt32LE(start.opens.length, 8);
  counts.writeUInt32LE(start.joins.length, 12);
  return frame('S', id, Buffer.concat([counts, Buffer.from(`${strings.join('\0')}\0`, 'utf8')]));
}
