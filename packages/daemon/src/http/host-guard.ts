import { isIP } from 'node:net';
import type { Listener } from './listener.ts';

/**
 * DNS-rebinding guard: a page on `evil.example` whose name was re-pointed at 127.0.0.1 reaches
 * our port with `Host: evil.example:<port>`, so only loopback names (and the bound host) with
 * the right port are served on TCP. The unix socket is unreachable from a browser; there the
 * Host is `localhost` or absent (HTTP/1.1 clients of a socket often send no name at all).
 * `host` is the header as received; names are compared lowercased.
 */
export function isAllowedHost(listener: Listener, host: string | undefined): boolean {
  if (listener.kind === 'unix') return host === undefined || host.toLowerCase() === 'localhost';
  if (host === undefined) return false;
  return hostSet(listener).has(host.toLowerCase());
}

/**
 * Whether the request holds at most one `Host` field (RFC 9112 §3.2: more is a 400). Node keeps
 * the first of several in `headers.host`, so only the raw list shows a second.
 */
export function hasOneHost(rawHeaders: readonly string[]): boolean {
  let seen = false;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    if (name.length !== 4 || name.toLowerCase() !== 'host') continue;
    if (seen) return false;
    seen = true;
  }
  return true;
}

/** `Host` values accepted on a TCP listener; also the origins CORS allows (with `http://`). */
export function allowedHosts(listener: { host: string; port: number }): string[] {
  const names = [...new Set(['127.0.0.1', 'localhost', '[::1]', hostLiteral(listener.host)])];
  const hosts = names.map((name) => `${name}:${listener.port}`);
  // On port 80 clients leave the port out of Host and browsers out of Origin (RFC 9110 §7.2,
  // the default port of `http`), so the daemon's own `base_url` arrives without it.
  return listener.port === 80 ? [...hosts, ...names] : hosts;
}

/** An IP literal as it appears in a URL authority: IPv6 in brackets (RFC 3986 §3.2.2). */
export function hostLiteral(host: string): string {
  return host.includes(':') ? `[${host}]` : host.toLowerCase();
}

/** `host` if it is an IP literal or `localhost`; else a `TypeError` naming it. */
export function checkHost(host: string): string {
  if (host === 'localhost' || isIP(host) !== 0) return host;
  throw new TypeError(
    `tcp host must be an IP address or localhost; received ${JSON.stringify(host)}`,
  );
}

/**
 * The allow-list of a TCP listener, built once per bound port rather than per request (the port
 * is known only after listen(2), so it is built on first use and again if the port moves).
 */
const sets = new WeakMap<Listener, { port: number; hosts: Set<string> }>();

function hostSet(listener: { kind: 'tcp'; host: string; port: number }): Set<string> {
  const held = sets.get(listener);
  if (held !== undefined && held.port === listener.port) return held.hosts;
  const hosts = new Set(allowedHosts(listener));
  sets.set(listener, { port: listener.port, hosts });
  return hosts;
}
