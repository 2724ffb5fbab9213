import type { DaemonHandle, StartDaemonOptions } from './daemon.ts';

export type { DaemonHandle, StartDaemonOptions } from './daemon.ts';
export { ApiError, DaemonError } from './errors.ts';
export { type LockInfo, readLock } from './lifecycle/lock.ts';
export { type SpawnDaemonOptions, spawnDaemon } from './lifecycle/spawn.ts';
export { parseTcpSpec } from './listeners/tcp.ts';
export type { TcpInfo } from './ports.ts';
export { DAEMON_VERSION } from './version.ts';
export { DEFAULT_VIEWER_DIST } from './viewer-dist.ts';

/**
 * Starts the daemon in this process (`./daemon.ts`). Loaded on the first call: what only reads
 * the lock or spawns a daemon (`svc daemon status`, `stop`, `start`) loads none of it.
 */
export async function startDaemon(opts: StartDaemonOptions = {}): Promise<DaemonHandle> {
  const { startDaemon: start } = await import('./daemon.ts');
  return start(opts);
}
