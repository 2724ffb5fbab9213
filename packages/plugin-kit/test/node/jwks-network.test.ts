/// <reference types="node" />
// Node only: the directory's key-set endpoint over real sockets — down, slow, and up.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFetchHandler } from '../../src/index.ts';
import { createTestIssuer, type TestIssuer } from '../../src/testing/index.ts';
import { acmeDefinition, post } from '../helpers.ts';

const AUDIENCE = 'https://plugins.example/acme';
const servers: Server[] = [];

function listen(server: Server): Promise<string> {
  servers.push(server);
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    });
  });
}

async function call(issuerUrl: string, issuer: TestIssuer, timeoutMs?: number) {
  const handler = createFetchHandler(acmeDefinition(), {
    auth: { issuer: issuerUrl, audience: AUDIENCE },
    ...(timeoutMs === undefined ? {} : { jwks: { timeoutMs } }),
  });
  const token = await issuer.mint({ aud: AUDIENCE, scope: 'acme:tickets' });
  const started = Date.now();
  const response = await handler(
    post('/acme/tickets/echo', {}, { Authorization: `Bearer ${token}`, 'Svc-Request-Id': 'r' }),
  );
  return { response, elapsed: Date.now() - started };
}

let upUrl: string;
let slowUrl: string;
let downUrl: string;
let up: TestIssuer;

beforeAll(async () => {
  // The live issuer's URL is only known once it listens: route through a late-bound issuer.
  let live: TestIssuer | undefined;
  upUrl = await listen(
    createServer(async (req, res) => {
      const answer = await (live as TestIssuer).fetch(`${upUrl}${req.url}`);
      res.writeHead(answer.status, { 'Content-Type': 'application/json' });
      res.end(await answer.text());
    }),
  );
  live = up = await createTestIssuer({ issuer: upUrl });
  // accepts connections and never answers
  slowUrl = await listen(createServer(() => {}));
  // a port that was open and is now closed: connection refused
  const closed = createServer();
  downUrl = await listen(closed);
  await new Promise<void>((resolve) => closed.close(() => resolve()));
});

afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

describe('directory key set over the network', () => {
  it('verifies a token against a live JWKS endpoint', async () => {
    const { response } = await call(upUrl, up);
    expect(response.status).toBe(200);
  });

  it('answers 401 quickly when the JWKS endpoint refuses connections', async () => {
    const issuer = await createTestIssuer({ issuer: downUrl });
    const { response, elapsed } = await call(downUrl, issuer);
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe(
      'unauthorized',
    );
    expect(elapsed).toBeLessThan(5_000);
  });

  it('answers 401 at the timeout when the JWKS endpoint never answers', async () => {
    const issuer = await createTestIssuer({ issuer: slowUrl });
    const { response, elapsed } = await call(slowUrl, issuer, 300);
    expect(response.status).toBe(401);
    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(elapsed).toBeLessThan(5_000);
  });

  it('answers 401 within the default 2 s timeout, inside a 5 s test timeout', async () => {
    const issuer = await createTestIssuer({ issuer: slowUrl });
    const { response, elapsed } = await call(slowUrl, issuer);
    expect(response.status).toBe(401);
    expect(elapsed).toBeGreaterThanOrEqual(1_900);
    expect(elapsed).toBeLessThan(3_500);
  }, 5_000);
});
