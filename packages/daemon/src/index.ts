export type { TcpInfo } from './context.ts';
export {
  type DaemonHandle,
  DEFAULT_VIEWER_DIST,
  type StartDaemonOptions,
  startDaemon,
} from './daemon.ts';
export { ApiError, DaemonError } from './errors.ts';
export { type LockInfo, readLock } from './lifecycle/lock.ts';
export { type SpawnDaemonOptions, spawnDaemon } from './lifecycle/spawn.ts';
export { parseTcpSpec } from './listeners/tcp.ts';
export { DAEMON_VERSION } from './version.ts';
