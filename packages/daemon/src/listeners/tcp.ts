import { isIP } from 'node:net';
import { DaemonError } from '../errors.ts';
import { checkHost, hostLiteral } from '../http/host-guard.ts';
import type { TcpInfo } from '../ports.ts';
import { type ListenerServer, listenerServer, type Served } from './server.ts';

export const DEFAULT_TCP_HOST = '127.0.0.1';

export interface TcpListener extends ListenerServer {
  info: TcpInfo;
}

/**
 * The TCP listener (off until asked for). `host` must be an IP literal or `localhost`: a name
 * would need a DNS lookup, and the Host allow-list is built from it.
 */
export async function listenTcp(
  app: Served,
  opts: { host?: string | undefined; port?: number | undefined },
): Promise<TcpListener> {
  const host = checkHost(opts.host ?? DEFAULT_TCP_HOST);
  const port = opts.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new TypeError(`tcp port must be an integer from 0 to 65535; received ${port}`);
  }
  // The bound port is only known after listen(2), and the app reads the listener per request.
  const listener = { kind: 'tcp' as const, host, port };
  const srv = listenerServer(app, listener);
  await new Promise<void>((resolve, reject) => {
    srv.server.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        new DaemonError(
          'tcp_listen_failed',
          `cannot listen on ${hostLiteral(host)}:${port}: ${error.code ?? error.message}`,
          { cause: error },
        ),
      );
    });
    srv.server.listen(port, host, () => resolve());
  });
  const address = srv.server.address();
  listener.port = typeof address === 'object' && address !== null ? address.port : port;
  return {
    ...srv,
    info: { host, port: listener.port, base_url: baseUrlOf(host, listener.port) },
  };
}

/**
 * The URL clients are given. A wildcard bind (`0.0.0.0`, `::`) names no host a client can
 * connect to everywhere, so the loopback address of its family stands in: the Host allow-list
 * takes it on any bind.
 */
export function baseUrlOf(host: string, port: number): string {
  const reachable =
    isIP(host) === 4 && host === '0.0.0.0' ? '127.0.0.1' : isAnyV6(host) ? '::1' : host;
  return `http://${hostLiteral(reachable)}:${port}`;
}

/** `::` in any of its spellings (`::0`, `0:0:0:0:0:0:0:0`). */
function isAnyV6(host: string): boolean {
  return isIP(host) === 6 && new URL(`http://[${host}]`).hostname === '[::]';
}

/** `[HOST:]PORT` of `--tcp` (IPv6 as `[::1]:8080`). */
export function parseTcpSpec(spec: string): { host?: string; port: number } {
  const match = spec.match(/^(?:(\[[^\]]+\]|[^:[\]]+):)?(\d{1,5})$/);
  const port = Number(match?.[2]);
  if (match === null || port > 65535) {
    throw new TypeError(
      `--tcp must be [HOST:]PORT (e.g. 8787 or 127.0.0.1:8787); received ${JSON.stringify(spec)}`,
    );
  }
  const host = match[1]?.replace(/^\[(.*)\]$/, '$1');
  return host === undefined ? { port } : { host, port };
}
