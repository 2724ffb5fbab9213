import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from './helpers.ts';

let t: TestDaemon;
beforeAll(async () => {
  t = await startTestDaemon();
  await t.appToken([]);
});
afterAll(() => t.stop());

/** A request for `path` over the socket, byte for byte (fetch would drop a fragment). */
function rawGet(path: string, method = 'GET'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        socketPath: t.daemon.socketPath,
        path,
        method,
        headers: { authorization: `Bearer ${t.ownerToken}` },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('request path', () => {
  it('HEAD is served by the GET route, literal or with parameters', async () => {
    expect((await rawGet('/v1/status', 'HEAD')).status).toBe(200);
    // The GET route of a parameterised path answers (an unknown node: 404); no GET route: 405.
    expect((await rawGet('/v1/nodes/nd_01ARZ3NDEKTSV4RRFFQ69G5FAV', 'HEAD')).status).toBe(404);
    expect((await rawGet('/v1/tokens/tok_x', 'HEAD')).status).toBe(405);
    expect((await rawGet('/v1/status', 'POST')).status).toBe(405);
  });

  it('reads the query up to a fragment, and a query without its parameters gets defaults', async () => {
    const page = (path: string) =>
      rawGet(path).then(({ status, body }) => ({ status, count: JSON.parse(body).data?.length }));
    expect(await page('/v1/tokens?limit=1#limit=oops')).toEqual({ status: 200, count: 1 });
    expect(await page('/v1/tokens#?limit=oops')).toEqual({ status: 200, count: 2 });
    expect(await page('/v1/tokens')).toEqual({ status: 200, count: 2 });
    expect((await page('/v1/tokens?limit=oops')).status).toBe(422);
  });

  it('resolves dot segments and percent-escapes in the path as a URL parser does', async () => {
    expect((await rawGet('/v1/x/../status')).status).toBe(200);
    expect((await rawGet('/v1/x/%2e%2E/status')).status).toBe(200);
    expect((await rawGet('/v1/st%61tus')).status).toBe(200);
    expect((await rawGet('/v1/./status?x=1')).status).toBe(200);
    // An escaped slash stays one segment: no route has it, and it is no crash either.
    const slash = await rawGet('/v1/nodes/nd_a%2Fb');
    expect([404, 422]).toContain(slash.status);
    expect((await rawGet('/v1/nodes/%E0%A4%A')).status).toBeLessThan(500);
  });

  it('decodes an escape once: %25 is a literal %, never the start of another escape', async () => {
    const token = await t.appToken([]);
    const id = token.token_id;
    // `%25` then `6f` is `%6f` in the id, not `o`: no token has that id (a malformed one: 422).
    const hex = id.charCodeAt(1).toString(16);
    const twice = await rawGet(`/v1/tokens/${id[0]}%25${hex}${id.slice(2)}`, 'DELETE');
    expect(twice.status).toBe(422);
    // Once-encoded, the same id is the token's, which the first did not revoke.
    expect((await rawGet(`/v1/tokens/${id[0]}%${hex}${id.slice(2)}`, 'DELETE')).status).toBe(200);
    expect((await rawGet('/v1/st%2561tus')).status).toBe(404);
  });

  it('takes the absolute form of a request target, and refuses a target that is no path', async () => {
    expect((await rawGet('http://localhost/v1/status')).status).toBe(200);
    const star = await rawGet('*', 'OPTIONS');
    expect(star.status).toBe(400);
    expect(JSON.parse(star.body).error.code).toBe('invalid_request');
  });

  it('ignores the query of a route that takes none', async () => {
    expect((await rawGet('/v1/status?anything=1')).status).toBe(200);
  });

  it('puts the request id on streams and errors too', async () => {
    const id = { headers: { 'svc-request-id': 'stream-1' } };
    const stream = await t.call('/v1/events?follow=false', id);
    expect(stream.headers.get('svc-request-id')).toBe('stream-1');
    await stream.body?.cancel();
    const denied = await t.call('/v1/status', { ...id, token: 'svc_app_nope' });
    expect(denied.status).toBe(401);
    expect(denied.headers.get('svc-request-id')).toBe('stream-1');
  });
});
