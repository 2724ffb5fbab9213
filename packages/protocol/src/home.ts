/**
 * Where a daemon keeps its files (DESIGN "Files"): `SVC_HOME`, default `~/.svc`. Node-only, so it
 * is exported from the `@svc/protocol/home` subpath and never pulled into a browser or Worker bundle.
 */
import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * Longest usable unix socket path in bytes. `sockaddr_un.sun_path` is 108 bytes on Linux and 104
 * on macOS/BSD, both including the terminating NUL; 103 fits everywhere.
 */
export const SOCKET_PATH_MAX_BYTES = 103;

/** The levels of the daemon's log (`logs/daemon.log`), pino's, most verbose first, and `silent`. */
export const LOG_LEVELS: readonly string[] = [
  'trace',
  'debug',
  'info',
  'warn',
  'error',
  'fatal',
  'silent',
];

export interface HomePaths {
  home: string;
  db: string;
  socket: string;
  lock: string;
  ownerToken: string;
  logs: string;
  logFile: string;
}

/** `explicit` (a `--home` flag) → `SVC_HOME` → `~/.svc`; always absolute. */
export function resolveHome(explicit?: string): string {
  const chosen = nonEmpty(explicit) ?? nonEmpty(process.env.SVC_HOME) ?? join(homedir(), '.svc');
  return resolve(chosen.startsWith('~/') ? join(homedir(), chosen.slice(2)) : chosen);
}

/**
 * The files under a home. `socket` is `<home>/daemon.sock` when that fits in
 * `SOCKET_PATH_MAX_BYTES`; for a deeper home it is a short path in `/tmp` named by a hash of the
 * home (and the user id), so daemon and client still agree on it and it stays unique per home.
 */
export function homePaths(home: string): HomePaths {
  const abs = resolve(home);
  const logs = join(abs, 'logs');
  return {
    home: abs,
    db: join(abs, 'svc.db'),
    socket: socketPathFor(abs),
    lock: join(abs, 'daemon.lock'),
    ownerToken: join(abs, 'owner.token'),
    logs,
    logFile: join(logs, 'daemon.log'),
  };
}

/** Why a unix socket path cannot be bound, or `null` when it can. */
export function socketPathProblem(path: string): string | null {
  const bytes = Buffer.byteLength(path);
  return bytes > SOCKET_PATH_MAX_BYTES
    ? `unix socket path is ${bytes} bytes, over the ${SOCKET_PATH_MAX_BYTES}-byte limit of sun_path: ${path}`
    : null;
}

function socketPathFor(home: string): string {
  const inHome = join(home, 'daemon.sock');
  if (socketPathProblem(inHome) === null) return inHome;
  const uid = process.getuid?.() ?? 0;
  const digest = createHash('sha256').update(home).digest('hex').slice(0, 16);
  return join('/tmp', `svc-${uid}-${digest}.sock`);
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}
