import { isIP } from 'node:net';
import { UsageError } from '../errors.ts';

export interface ListenAddress {
  host?: string;
  port: number;
}

/** `[HOST:]PORT` (`8080`, `127.0.0.1:8080`, `[::1]:8080`); port 0 asks for any free port. */
export function parseListenAddress(text: string, option: string): ListenAddress {
  const match = /^(?:(\[[0-9a-fA-F:.]+\]|[^:[\]\s]+):)?(\d{1,5})$/.exec(text.trim());
  const port = Number(match?.[2]);
  if (!match || port > 65_535) {
    throw new UsageError(
      `${option} must be [HOST:]PORT with a port from 0 to 65535; received '${text}'`,
    );
  }
  const host = match[1]?.replace(/^\[(.*)\]$/, '$1');
  if (host === undefined) return { port };
  // The daemon binds an IP literal or localhost only: a name would need a DNS lookup, and its
  // Host allow-list is built from the host. Refused here, as usage, before anything is sent.
  if (host !== 'localhost' && isIP(host) === 0) {
    throw new UsageError(
      `${option} host must be an IP address or localhost (e.g. 127.0.0.1:8787); received '${host}'`,
    );
  }
  return { host, port };
}
