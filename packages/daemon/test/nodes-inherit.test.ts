/**
 * What a new node runs with: a child runs as its parent does (profile and model) unless it names
 * others, inside its parent's scopes; and a create whose model cannot run as things stand is
 * refused at once, with the fix named, instead of queueing a node that fails later.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json } from './helpers.ts';
import { type NodesDaemon, SCRIPTED, startNodesDaemon } from './nodes-fixture.ts';

let t: NodesDaemon;
beforeAll(async () => {
  t = await startNodesDaemon();
  // The first node holds the one idle broker slot; every node after it stays queued.
  await t.createNode({ task: 'holds the slot' });
  // A key is all readiness asks for; no call reaches OpenAI (no broker takes these nodes).
  const key = await t.call('/v1/model-auth/openai', json({ api_key: 'sk-test-not-real' }));
  expect(key.status).toBe(200);
  await ensureProfile('researcher', {
    model: { provider: 'openai', model: 'gpt-5' },
    system_prompt: 'You research.',
    scopes: ['svc:llm', 'svc:act'],
  });
  await ensureProfile('writer', { model: { provider: 'anthropic', model: 'claude-sonnet-4-5' } });
  await ensureProfile('wide', { scopes: ['svc:llm', 'svc:act', 'svc:schedule'] });
  await ensureProfile('replayer', {
    model: { provider: 'scripted', model: 'worker', script: [{ text: 'worked' }] },
  });
});
afterAll(() => t.stop());

async function ensureProfile(name: string, body: Record<string, unknown>): Promise<void> {
  const res = await t.call(`/v1/profiles/${name}`, json(body, 'PUT'));
  expect(res.status, await res.text()).toBe(200);
}

async function nodeCount(): Promise<number> {
  return (await t.get('/v1/nodes?limit=200')).body.data.length;
}

describe('a child runs as its parent does', () => {
  it("takes the parent's profile and model when it names neither", async () => {
    const parent = await t.post('/v1/nodes', { task: 'research', profile: 'researcher' });
    expect(parent.body).toMatchObject({
      profile: 'researcher',
      model: { provider: 'openai', model: 'gpt-5' },
      scopes: ['svc:llm', 'svc:act'],
    });
    const child = await t.post('/v1/nodes', { task: 'dig' }, t.nodeToken(parent.body.id));
    expect(child.status, JSON.stringify(child.body)).toBe(200);
    expect(child.body).toMatchObject({
      parent_id: parent.body.id,
      profile: 'researcher',
      model: { provider: 'openai', model: 'gpt-5' },
      scopes: ['svc:llm', 'svc:act'],
    });
  });

  it('a parent given a model at create hands that model down, not its profile default', async () => {
    const parent = await t.post('/v1/nodes', {
      task: 'research',
      profile: 'researcher',
      model: { provider: 'openai', model: 'gpt-5-mini' },
    });
    const child = await t.post('/v1/nodes', { task: 'dig' }, t.nodeToken(parent.body.id));
    expect(child.body).toMatchObject({
      profile: 'researcher',
      model: { provider: 'openai', model: 'gpt-5-mini' },
    });
  });

  it("a named profile brings its own model; a named model wins over the parent's", async () => {
    const parent = await t.post('/v1/nodes', { task: 'lead', profile: 'researcher' });
    const token = t.nodeToken(parent.body.id);
    const replayer = await t.post('/v1/nodes', { task: 'replay', profile: 'replayer' }, token);
    expect(replayer.body).toMatchObject({
      profile: 'replayer',
      model: { provider: 'scripted', model: 'worker' },
    });
    const named = await t.post('/v1/nodes', { task: 'x', model: SCRIPTED }, token);
    expect(named.body).toMatchObject({
      profile: 'researcher',
      model: { provider: 'scripted', model: 'replay' },
    });
  });

  it("a named profile stays inside the parent's scopes (403 scope_missing)", async () => {
    const parent = await t.post('/v1/nodes', { task: 'lead', profile: 'researcher' });
    const before = await nodeCount();
    const res = await t.post(
      '/v1/nodes',
      { task: 'widen', profile: 'wide', model: SCRIPTED },
      t.nodeToken(parent.body.id),
    );
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: 'scope_missing' });
    expect(await nodeCount()).toBe(before);
  });

  it("a scripted parent's turns are its own: its child takes the profile's script, or is refused", async () => {
    const parent = await t.post('/v1/nodes', {
      task: 'lead',
      profile: 'replayer',
      model: SCRIPTED,
    });
    const child = await t.post('/v1/nodes', { task: 'work' }, t.nodeToken(parent.body.id));
    expect(child.body).toMatchObject({
      profile: 'replayer',
      model: { provider: 'scripted', model: 'worker' },
    });
    const bare = await t.post('/v1/nodes', { task: 'lead', model: SCRIPTED });
    const refused = await t.post('/v1/nodes', { task: 'work' }, t.nodeToken(bare.body.id));
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'invalid_request', field: 'model' });
    expect(refused.body.error.message).toMatch(/spawn's model/);
  });
});

describe('create refuses a model that cannot run', () => {
  it('a provider without credentials: 409 invalid_state naming the install command; nothing made', async () => {
    const before = await nodeCount();
    const res = await t.post('/v1/nodes', {
      task: 'x',
      model: { provider: 'anthropic', model: 'claude-sonnet-4-5' },
    });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({
      code: 'invalid_state',
      field: 'model.provider',
      received: 'anthropic',
    });
    expect(res.body.error.message).toMatch(/svc models install anthropic/);
    // The same through a profile, create-and-wait, parse and a run.
    const viaProfile = await t.post('/v1/nodes', { task: 'x', profile: 'writer' });
    expect(viaProfile.body.error).toMatchObject({ code: 'invalid_state' });
    for (const path of ['/v1/nodes/create-and-wait', '/v1/nodes/parse']) {
      const waited = await t.post(path, {
        task: 'x',
        profile: 'writer',
        output_schema: { type: 'object' },
      });
      expect(waited.status, path).toBe(409);
    }
    const app = (await t.appToken(['svc:llm', 'svc:act'], { app_id: 'inherit-app' })).token;
    const run = await t.post('/v1/runs', { task: 'x', profile: 'writer' }, app);
    expect(run.status).toBe(409);
    expect(await nodeCount()).toBe(before);
  });

  it("'scripted' without a script: 400 invalid_request naming model.script and the flags", async () => {
    const res = await t.post('/v1/nodes', {
      task: 'x',
      model: { provider: 'scripted', model: 'replay' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', field: 'model.script' });
    expect(res.body.error.message).toMatch(/--script FILE/);
  });
});
