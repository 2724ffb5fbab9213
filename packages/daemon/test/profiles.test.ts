import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { daemonLog, envelope, json, startTestDaemon, type TestDaemon } from './helpers.ts';

let t: TestDaemon;
let alpha: string;
let beta: string;
beforeAll(async () => {
  t = await startTestDaemon();
  alpha = (await t.appToken(['svc:llm'], { app_id: 'alpha' })).token;
  beta = (await t.appToken(['svc:llm'], { app_id: 'beta' })).token;
});
afterAll(() => t.stop());

interface Profile {
  name: string;
  description: string | null;
  model: { provider: string; model: string } | null;
  scripted_turns: number | null;
  system_prompt: string | null;
  tools: string[] | null;
  scopes: string[] | null;
  budgets: { max_turns: number | null; max_tokens: number | null; max_cost_usd: number | null };
  env: { name: string; updated_at: string }[];
  app_id: string | null;
  created_at: string;
  updated_at: string;
}

async function ensure(name: string, body: unknown, token?: string) {
  return t.call(`/v1/profiles/${name}`, { ...json(body, 'PUT'), ...(token && { token }) });
}

async function eventCount(): Promise<number> {
  const db = new DatabaseSync(join(t.home, 'svc.db'), { readOnly: true });
  try {
    return (
      db.prepare("SELECT count(*) AS n FROM events WHERE kind LIKE 'profile.%'").get() as {
        n: number;
      }
    ).n;
  } finally {
    db.close();
  }
}

describe('profiles.ensure', () => {
  it("the default profile always exists, the owner's, with the default budgets", async () => {
    const res = await t.call('/v1/profiles/default', { token: alpha });
    expect(await res.json()).toMatchObject({
      name: 'default',
      model: null,
      app_id: null,
      env: [],
      budgets: { max_turns: 100, max_tokens: null, max_cost_usd: null },
    });
  });

  it('creates, keeps omitted fields, resets null ones, and a repeat changes nothing', async () => {
    const body = {
      description: 'reviews code',
      model: { provider: 'anthropic', model: 'claude-sonnet-4-5' },
      system_prompt: 'You review code.',
      tools: ['bash', 'submit', 'git:read'],
      scopes: ['svc:llm', 'svc:act'],
      budgets: { max_turns: 20, max_cost_usd: 2 },
    };
    const created = (await (await ensure('reviewer', body)).json()) as Profile;
    expect(created).toMatchObject({
      ...body,
      scripted_turns: null,
      budgets: { max_turns: 20, max_tokens: null, max_cost_usd: 2 },
      app_id: null,
    });
    const events = await eventCount();
    const again = (await (await ensure('reviewer', body)).json()) as Profile;
    expect(again).toEqual(created);
    expect(await eventCount()).toBe(events);

    const changed = (await (
      await ensure('reviewer', { description: null, budgets: { max_turns: null } })
    ).json()) as Profile;
    expect(changed).toMatchObject({
      description: null,
      system_prompt: 'You review code.',
      tools: body.tools,
      budgets: { max_turns: null, max_tokens: null, max_cost_usd: 2 },
    });
    expect(changed.updated_at >= created.updated_at).toBe(true);
    expect(await eventCount()).toBe(events + 1);
  });

  it('a scripted model answers its turn count, never its script', async () => {
    const res = await ensure('replay', {
      model: { provider: 'scripted', model: 'demo', script: [{ text: 'one' }, { text: 'two' }] },
    });
    const text = await res.text();
    expect(JSON.parse(text)).toMatchObject({
      model: { provider: 'scripted', model: 'demo' },
      scripted_turns: 2,
    });
    expect(text).not.toContain('script"');
  });

  it('refuses a script for a real provider, legacy scopes, and bad names', async () => {
    const script = await ensure('x', {
      model: { provider: 'openai', model: 'gpt-5', script: [{ text: 'hi' }] },
    });
    expect(await envelope(script)).toMatchObject({
      code: 'validation_failed',
      field: 'model.script',
    });
    const legacy = await ensure('x', { scopes: ['act'] });
    expect(await envelope(legacy)).toMatchObject({ code: 'invalid_request', field: 'scopes' });
    const actOnly = await ensure('x', { scopes: ['svc:act'] });
    expect(await envelope(actOnly)).toMatchObject({ code: 'invalid_request', field: 'scopes' });
    const tool = await ensure('x', { tools: ['rm -rf'] });
    expect((await envelope(tool)).code).toBe('validation_failed');
    const name = await ensure('Bad_Name', {});
    expect(name.status).toBe(422);
  });
});

describe('who sees and changes which profile', () => {
  it("an app creates its own, cannot change the owner's or another app's, and sees only its own and the owner's", async () => {
    const mine = await ensure('alpha-bot', { description: 'alpha' }, alpha);
    expect(await mine.json()).toMatchObject({ name: 'alpha-bot', app_id: 'alpha' });
    expect((await ensure('alpha-bot', { description: 'again' }, alpha)).status).toBe(200);

    const owners = await ensure('default', { description: 'mine now' }, alpha);
    expect(owners.status).toBe(403);
    expect((await envelope(owners)).message).toMatch(/belongs to the owner/);
    // Hidden from beta (404 below): the name is taken, but whose it is stays unsaid.
    const others = await ensure('alpha-bot', { description: 'beta was here' }, beta);
    expect(others.status).toBe(409);
    const taken = await envelope(others);
    expect(taken).toMatchObject({ code: 'conflict', field: 'name' });
    expect(taken.message).not.toContain("app 'alpha'");

    expect((await t.call('/v1/profiles/alpha-bot', { token: beta })).status).toBe(404);
    const names = async (token?: string) =>
      (
        (await (await t.call('/v1/profiles?limit=100', token ? { token } : {})).json()) as {
          data: Profile[];
        }
      ).data.map((p) => p.name);
    expect(await names(beta)).not.toContain('alpha-bot');
    expect(await names(beta)).toContain('default');
    expect(await names(alpha)).toContain('alpha-bot');
    expect(await names()).toContain('alpha-bot');
    // The owner may change any profile.
    expect((await ensure('alpha-bot', { description: 'owner edit' })).status).toBe(200);
  });

  it("an app's profile takes default scopes within the app's ceiling only", async () => {
    const wide = await ensure('alpha-wide', { scopes: ['svc:llm', 'svc:schedule'] }, alpha);
    expect(wide.status).toBe(403);
    expect(await envelope(wide)).toMatchObject({
      code: 'scope_missing',
      field: 'svc:schedule',
      received: ['svc:llm'],
    });
    expect((await t.call('/v1/profiles/alpha-wide', { token: alpha })).status).toBe(404);
    const narrow = await ensure('alpha-narrow', { scopes: ['svc:llm'] }, alpha);
    expect(narrow.status).toBe(200);
    // the owner holds everything
    expect((await ensure('owner-wide', { scopes: ['svc:llm', 'svc:schedule'] })).status).toBe(200);
  });

  it('pages by name', async () => {
    const page = (await (await t.call('/v1/profiles?limit=1')).json()) as {
      data: Profile[];
      has_more: boolean;
      next_cursor: string;
    };
    expect(page).toMatchObject({ has_more: true, next_cursor: page.data[0]!.name });
    const next = (await (
      await t.call(`/v1/profiles?limit=1&after=${page.next_cursor}`)
    ).json()) as {
      data: Profile[];
    };
    expect(next.data[0]!.name > page.next_cursor).toBe(true);
  });
});

describe('the env store', () => {
  const VALUE = 'ghp_SECRETVALUE_0123456789abcdefghij';

  it('stores a value for brokers and answers names only; owner only', async () => {
    await ensure('envy', {});
    const res = await t.call('/v1/profiles/envy/env/GITHUB_TOKEN', json({ value: VALUE }, 'PUT'));
    const text = await res.text();
    expect(text).not.toContain(VALUE);
    expect(text).not.toContain(VALUE.slice(0, 8));
    expect(JSON.parse(text).env).toEqual([
      { name: 'GITHUB_TOKEN', updated_at: expect.any(String) },
    ]);
    expect(await (await t.call('/v1/profiles/envy')).text()).not.toContain(VALUE);

    const denied = await t.call('/v1/profiles/envy/env/X', {
      ...json({ value: 'v' }, 'PUT'),
      token: alpha,
    });
    expect(denied.status).toBe(403);
    const badName = await t.call('/v1/profiles/envy/env/1BAD', json({ value: 'v' }, 'PUT'));
    expect(badName.status).toBe(422);
    const noProfile = await t.call('/v1/profiles/ghost/env/X', json({ value: 'v' }, 'PUT'));
    expect(await envelope(noProfile)).toMatchObject({ code: 'not_found', field: 'name' });

    const db = new DatabaseSync(join(t.home, 'svc.db'), { readOnly: true });
    try {
      const events = JSON.stringify(db.prepare('SELECT * FROM events').all());
      expect(events).toContain('profile.env.set');
      expect(events).not.toContain(VALUE);
      expect(JSON.stringify(db.prepare('SELECT * FROM idempotency_keys').all())).not.toContain(
        VALUE,
      );
    } finally {
      db.close();
    }
    expect(await daemonLog(t.home)).not.toContain(VALUE);
  });

  it('deletes a value; deleting a missing one is 404', async () => {
    const res = await t.call('/v1/profiles/envy/env/GITHUB_TOKEN', { method: 'DELETE' });
    expect(((await res.json()) as Profile).env).toEqual([]);
    const again = await t.call('/v1/profiles/envy/env/GITHUB_TOKEN', { method: 'DELETE' });
    expect(await envelope(again)).toMatchObject({ code: 'not_found', field: 'var' });
  });
});
