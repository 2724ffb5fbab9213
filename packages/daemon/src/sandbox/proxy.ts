/**
 * The filtering proxy of a node whose network is a list of domains: an HTTP proxy on a unix
 * socket that its sandbox is given (bound at `/run/svc/proxy.sock`, where the session's executor
 * forwards `127.0.0.1:3128` to it, inside the sandbox's own network namespace). It tunnels
 * `CONNECT host:port` (HTTPS) and forwards plain `http://` requests only to an allowed host; any
 * other is 403. The sandbox has no other way out: its namespace has no interface but loopback.
 */
import { createServer, request, type Server } from 'node:http';
import { connect } from 'node:net';

/** Where a command's programs find the proxy: the executor's forwarder in the sandbox. */
export const PROXY_PORT = 3128;
export const PROXY_SOCKET_IN_SANDBOX = '/run/svc/proxy.sock';

/** Whether `host` is allowed by `patterns` (`example.com`, `*.example.com` for names below). */
export function hostAllowed(patterns: readonly string[], host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  // Letters, digits, hyphens and dots only: no userinfo, fragment or other bytes a resolver
  // might read otherwise than this check does.
  if (!/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/.test(name)) return false;
  return patterns.some((p) =>
    p.startsWith('*.') ? name.endsWith(p.slice(1)) && name.length > p.length - 1 : name === p,
  );
}

/** `host:port` of a CONNECT target or a URL's authority; `null` when it is no such thing. */
function target(authority: string, defaultPort: number): { host: string; port: number } | null {
  const match = /^\[?([^\]]+?)\]?(?::(\d{1,5}))?$/.exec(authority);
  if (match === null) return null;
  const port = match[2] === undefined ? defaultPort : Number(match[2]);
  return port > 0 && port < 65536 ? { host: match[1]!, port } : null;
}

/** Starts the proxy on `socketPath` for `allow`; resolves once it listens. */
export async function startProxy(socketPath: string, allow: readonly string[]): Promise<Server> {
  const server = createServer((req, res) => {
    let url: URL;
    try {
      url = new URL(req.url ?? '');
    } catch {
      res.writeHead(400).end('svc sandbox proxy: an absolute http:// URL is needed\n');
      return;
    }
    if (url.protocol !== 'http:' || !hostAllowed(allow, url.hostname)) {
      res.writeHead(403).end(`svc sandbox proxy: ${url.hostname} is not allowed\n`);
      return;
    }
    const upstream = request(
      url,
      // The Host the check allowed, never the client's own (no fronting another name).
      { method: req.method, headers: { ...req.headers, host: url.host, connection: 'close' } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (res.headersSent) res.destroy();
      else res.writeHead(502).end('svc sandbox proxy: upstream failed\n');
    });
    req.pipe(upstream);
  });
  server.on('connect', (req, client, head) => {
    const to = target(req.url ?? '', 443);
    if (to === null || !hostAllowed(allow, to.host)) {
      client.end(`HTTP/1.1 403 Forbidden\r\n\r\n`);
      return;
    }
    const upstream = connect(to.port, to.host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n'));
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, resolve);
  });
  server.unref();
  return server;
}

/** What a command is told of the proxy. */
export const PROXY_ENV: Record<string, string> = {
  http_proxy: `http://127.0.0.1:${PROXY_PORT}`,
  https_proxy: `http://127.0.0.1:${PROXY_PORT}`,
  HTTP_PROXY: `http://127.0.0.1:${PROXY_PORT}`,
  HTTPS_PROXY: `http://127.0.0.1:${PROXY_PORT}`,
  ALL_PROXY: `http://127.0.0.1:${PROXY_PORT}`,
  no_proxy: 'localhost,127.0.0.1,::1',
  NO_PROXY: 'localhost,127.0.0.1,::1',
};
