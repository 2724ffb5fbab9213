import { ApiError, DaemonError } from '../../errors.ts';
import type { EventLog } from '../../events/log.ts';
import type { ListenerServer, Served } from '../../listeners/server.ts';
import { listenTcp, type TcpListener } from '../../listeners/tcp.ts';
import { listenUnix } from '../../listeners/unix.ts';
import type { TcpInfo } from '../../ports.ts';
import type { Logger } from '../logger.ts';
import { definePart } from './part.ts';

export type TcpWanted = { host?: string | undefined; port?: number | undefined };

/**
 * The unix socket (from the start) and the TCP listener (when asked), both serving `app`, which
 * is set once the context they serve exists. Closed by draining: requests in flight get
 * `drainTimeoutMs`, then `hardStop` aborts the long-running work (bash) still holding them.
 */
export function listenersPart(opts: {
  socketPath: string;
  events: Pick<EventLog, 'record'>;
  logger: Logger;
  /** True once shutdown began: no TCP listener starts then. */
  draining: () => boolean;
}) {
  const hardStop = new AbortController();
  let app: Served | undefined;
  let unix: ListenerServer | undefined;
  let tcp: TcpListener | null = null;
  let tcpStarting: Promise<TcpInfo> | null = null;

  const served = (): Served => {
    if (app === undefined) throw new Error('the listeners serve nothing yet');
    return app;
  };

  /** Turns the TCP listener on; a no-op answering the current one when it is on as asked. */
  const enableTcp = (want: TcpWanted = {}): Promise<TcpInfo> => {
    if (opts.draining())
      return Promise.reject(new ApiError('not_ready', 'the daemon is shutting down'));
    tcpStarting ??= listenTcp(served(), want).then(
      (listener) => {
        tcp = listener;
        opts.events.record('listener.tcp', null, listener.info);
        opts.logger.info({ tcp: listener.info }, 'tcp listener on');
        return listener.info;
      },
      (error: unknown) => {
        tcpStarting = null;
        throw error;
      },
    );
    return tcpStarting.then((info) => {
      const hostDiffers = want.host !== undefined && want.host !== info.host;
      const portDiffers = want.port !== undefined && want.port !== 0 && want.port !== info.port;
      if (hostDiffers || portDiffers) {
        throw new DaemonError(
          'tcp_already_on',
          `the TCP listener is already on at ${info.base_url}`,
        );
      }
      return info;
    });
  };

  return definePart({
    name: 'listeners',
    hardStop: hardStop.signal,
    serve(served: Served): void {
      app = served;
    },
    tcp: (): TcpInfo | null => tcp?.info ?? null,
    enableTcp,
    start: async () => {
      unix = await listenUnix(served(), opts.socketPath);
    },
    close: async (graceMs: number) => {
      const giveUp = setTimeout(() => hardStop.abort(), graceMs);
      await Promise.all([unix?.close(graceMs), tcp?.close(graceMs)]);
      clearTimeout(giveUp);
    },
  });
}

export type Listeners = ReturnType<typeof listenersPart>;
