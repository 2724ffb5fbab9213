import { chmodSync, rmSync } from 'node:fs';
import { type ListenerServer, listenerServer, type Served } from './server.ts';

/**
 * The always-on unix socket, mode 0600. A socket file left by a killed daemon is removed first
 * (the caller holds the home's lock, so it cannot belong to a live daemon). The umask is
 * narrowed around bind(2) so the socket is never reachable by others, not even for the instant
 * before the chmod.
 */
export async function listenUnix(app: Served, socketPath: string): Promise<ListenerServer> {
  rmSync(socketPath, { force: true });
  const listener = listenerServer(app, { kind: 'unix' });
  const previous = process.umask(0o177);
  try {
    await new Promise<void>((resolve, reject) => {
      listener.server.once('error', reject);
      listener.server.listen(socketPath, () => {
        listener.server.off('error', reject);
        resolve();
      });
    });
  } finally {
    process.umask(previous);
  }
  chmodSync(socketPath, 0o600);
  return {
    server: listener.server,
    async close(graceMs) {
      await listener.close(graceMs);
      rmSync(socketPath, { force: true });
    },
  };
}
