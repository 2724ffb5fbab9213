import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, fetch, Headers, type RequestInit, type Response } from 'undici';
import { afterAll } from 'vitest';
import { type DaemonHandle, type StartDaemonOptions, startDaemon } from '../src/index.ts';
import { FLUSH_MS } from '../src/lifecycle/logger.ts';

/** A fresh home under the temp dir; short, for the 107-byte socket path limit. */
export function tempHome(prefix = 'svcd-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export interface TestDaemon {
  daemon: DaemonHandle;
  home: string;
  ownerToken: string;
  /** fetch over the unix socket; `path` like `/v1/status`. */
  call(path: string, init?: RequestInit & { token?: string | null }): Promise<Response>;
  /** Mints an app token through `POST /v1/connect`. */
  appToken(
    scopes: string[],
    extra?: Record<string, unknown>,
  ): Promise<{ token: string; token_id: string }>;
  stop(): Promise<void>;
}

export async function startTestDaemon(
  opts: Omit<StartDaemonOptions, 'home'> = {},
): Promise<TestDaemon> {
  const home = tempHome();
  const daemon = await startDaemon({ home, logLevel: 'warn', ...opts });
  const ownerToken = readFileSync(join(home, 'owner.token'), 'utf8').trim();
  const call = socketFetch(daemon.socketPath, ownerToken);
  return {
    daemon,
    home,
    ownerToken,
    call,
    async appToken(scopes, extra = {}) {
      const res = await call('/v1/connect', json({ app_id: 'test-app', scopes, ...extra }));
      if (res.status !== 200)
        throw new Error(`connect answered ${res.status}: ${await res.text()}`);
      return (await res.json()) as { token: string; token_id: string };
    },
    async stop() {
      await daemon.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** fetch bound to a unix socket; sends the owner token unless `token` says otherwise. */
export function socketFetch(socketPath: string, defaultToken: string | null) {
  const dispatcher = new Agent({ connect: { socketPath } });
  return (path: string, init: RequestInit & { token?: string | null } = {}) => {
    const { token = defaultToken, ...rest } = init;
    const headers = new Headers(rest.headers);
    if (token !== null && !headers.has('authorization'))
      headers.set('authorization', `Bearer ${token}`);
    return fetch(`http://localhost${path}`, { ...rest, headers, dispatcher });
  };
}

/** A POST (or `method`) with a JSON body. */
export function json(
  body: unknown,
  method = 'POST',
  headers: Record<string, string> = {},
): RequestInit {
  return {
    method,
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json', ...headers },
  };
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * A request with full control of the headers (fetch may not set `Host`), over TCP or a socket.
 */
export function rawRequest(
  target: { socketPath: string } | { host: string; port: number },
  opts: {
    method?: string;
    path: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    setHost?: boolean;
  },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        ...target,
        method: opts.method ?? 'GET',
        path: opts.path,
        headers: opts.headers,
        setHost: opts.setHost ?? true,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString(),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** The error envelope of a response, checked for shape. */
export async function envelope(res: Response): Promise<{
  code: string;
  message: string;
  field?: string;
  received?: unknown;
  request_id: string;
}> {
  const body = (await res.json()) as {
    error: { code: string; message: string; request_id: string };
  };
  if (typeof body?.error?.code !== 'string' || typeof body.error.request_id !== 'string') {
    throw new Error(`not an error envelope: ${JSON.stringify(body)}`);
  }
  return body.error;
}

/** The daemon's log once what it buffered has reached the file (lines are written in batches). */
export async function daemonLog(home: string): Promise<string> {
  await new Promise((resolve) => setTimeout(resolve, FLUSH_MS + 50));
  return readFileSync(join(home, 'logs', 'daemon.log'), 'utf8');
}

export { DAEMON_MAIN } from '../src/lifecycle/spawn.ts';

/**
 * Fresh temp folders for one test file: each call makes one (`prefix` names it); after the file,
 * every one is removed.
 */
export function scratchDirs(prefix = 'svcd-'): () => string {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = tempHome(prefix);
    dirs.push(dir);
    return dir;
  };
}

/**
 * Homes and daemon processes of one test file: `newHome()` makes a home and `pids` takes the
 * daemons started; after the file, every one is killed and every home removed.
 */
export function daemonProcesses(): { newHome(): string; pids: number[] } {
  const newHome = scratchDirs();
  const pids: number[] = [];
  // Registered after the homes' cleanup, so it runs first: a daemon is killed before its home goes.
  afterAll(() => {
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {}
    }
  });
  return { newHome, pids };
}
