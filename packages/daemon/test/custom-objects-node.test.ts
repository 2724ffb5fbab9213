/**
 * What a node token sees of the app-owned resources, through the route table's rules: custom
 * objects by `objects-read` (its app's, never another app's or the owner's), uploads and shares
 * not at all (an app's or the owner's to make and read: 403).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NodesDaemon, SCRIPTED, startNodesDaemon } from './nodes-fixture.ts';

let t: NodesDaemon;
let appA: string;
let appB: string;

beforeAll(async () => {
  t = await startNodesDaemon();
  appA = (await t.appToken(['svc:llm'], { app_id: 'app-oa' })).token;
  appB = (await t.appToken(['svc:llm'], { app_id: 'app-ob' })).token;
});
afterAll(() => t?.stop());

const QUEUE = { name: 'inbox', events: { ping: {} }, receiver: { kind: 'queue' } };

async function registered(token?: string): Promise<string> {
  const res = await t.post('/v1/custom-objects', QUEUE, token);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.id as string;
}

async function nodeOf(token: string): Promise<string> {
  const run = await t.post('/v1/runs', { task: 'a run', model: SCRIPTED }, token);
  expect(run.status, JSON.stringify(run.body)).toBe(200);
  return t.nodeToken(run.body.node_id as string);
}

describe('a node token', () => {
  it("sees its app's custom objects only: another app's and the owner's answer 404", async () => {
    const mine = await registered(appA);
    const theirs = await registered(appB);
    const owners = await registered();
    const node = await nodeOf(appA);

    const listed = await t.get('/v1/custom-objects?limit=200', node);
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((o: { id: string }) => o.id)).toEqual([mine]);
    expect((await t.get(`/v1/custom-objects/${mine}`, node)).status).toBe(200);
    for (const id of [theirs, owners]) {
      const res = await t.get(`/v1/custom-objects/${id}`, node);
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ code: 'not_found', field: 'id' });
    }
  });

  it('is refused uploads and shares with 403, whatever it names', async () => {
    const node = await nodeOf(appA);
    for (const path of ['/v1/uploads/upl_01ARZ3NDEKTSV4RRFFQ69G5FAV', '/v1/shares']) {
      const res = await t.get(path, node);
      expect(res.status, path).toBe(403);
      expect(res.body.error.code).toBe('forbidden');
    }
  });
});
