/**
 * Memory routes on a real daemon (docs/api-v1.md "Memory"): what each token kind sees of each
 * space, the privacy filter and the manage scope, other apps' scopes with the profile narrowing,
 * path scopes for writes, 404 for a hidden document, 4xx for bad input that changes nothing,
 * `if_version`, and the `memory.document` event of each write. Node tokens are real ones: the
 * stand-in broker writes the launch message it gets, token included.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, ok, scripted } from './broker-fixtures.ts';
import { envelope, json, startTestDaemon, type TestDaemon } from './helpers.ts';
import { eventBacklog } from './sse.ts';

const IDLE_BROKER = fileURLToPath(new URL('./fixtures/idle-broker.ts', import.meta.url));
let t: TestDaemon;

beforeAll(async () => {
  t = await startTestDaemon({ brokers: { concurrency: 8, entry: IDLE_BROKER } });
});
afterAll(async () => {
  await t?.stop();
});

interface Doc {
  space: string;
  path: string;
  title: string;
  kind: string;
  privacy: string;
  media_type: string | null;
  size: number;
  version: number;
  content?: string;
}
interface Page {
  data: Doc[];
  has_more: boolean;
  next_cursor: string | null;
}

type Token = string | undefined;
const as = (token: Token) => (token === undefined ? {} : { token });

function put(body: Record<string, unknown>, token?: Token) {
  return t.call('/v1/memory/document', { ...json(body, 'PUT'), ...as(token) });
}
function get(query: Record<string, string>, token?: Token) {
  return t.call(`/v1/memory/document?${new URLSearchParams(query)}`, as(token));
}
function del(query: Record<string, string>, token?: Token) {
  return t.call(`/v1/memory/document?${new URLSearchParams(query)}`, {
    method: 'DELETE',
    ...as(token),
  });
}
async function list(query: Record<string, string> = {}, token?: Token): Promise<Page> {
  return ok<Page>(await t.call(`/v1/memory?${new URLSearchParams(query)}`, as(token)));
}
const paths = (page: Page) => page.data.map((d) => d.path);

async function app(appId: string, scopes: string[]): Promise<string> {
  return (await t.appToken(scopes, { app_id: appId })).token;
}

/** A queued node (created with `token`) and the node token its stand-in broker received. */
async function nodeToken(token: Token, scopes?: string[]) {
  const res = await t.call('/v1/nodes', {
    ...json({
      task: 'remember things',
      model: scripted('unused', [{ text: 'never played' }]),
      ...(scopes !== undefined && { scopes }),
    }),
    ...as(token),
  });
  const node = await ok<{ id: string }>(res);
  const file = join(t.home, 'worktrees', node.id, 'launch.json');
  await eventually(
    () => existsSync(file) && readFileSync(file, 'utf8') !== '',
    15_000,
    'launch.json',
  );
  const launch = JSON.parse(readFileSync(file, 'utf8')) as { token: string };
  return { id: node.id, token: launch.token };
}

/** The `memory.document` events so far, oldest first. */
const memoryEvents = () => eventBacklog(t.call, 'memory.document');

describe("the person's space: privacy", () => {
  beforeAll(async () => {
    for (const [path, privacy] of [
      ['privacy/public.md', 'public'],
      ['privacy/friends.md', 'friends'],
      ['privacy/private.md', 'private'],
    ]) {
      await ok(await put({ path, privacy, content: `${privacy} text` }));
    }
  });
  const everything = ['privacy/friends.md', 'privacy/private.md', 'privacy/public.md'];

  it('the owner sees every level; an app sees public only; a grant holding manage sees all', async () => {
    expect(paths(await list({ prefix: 'privacy/' }))).toEqual(everything);
    const plain = await app('plain', ['svc:llm']);
    expect(paths(await list({ prefix: 'privacy/' }, plain))).toEqual(['privacy/public.md']);
    // svc:memory:read:user widens nothing: the filter is the privacy level.
    const reader = await app('reader', ['svc:memory:read:user']);
    expect(paths(await list({ prefix: 'privacy/' }, reader))).toEqual(['privacy/public.md']);
    const manager = await app('manager', ['svc:memory:manage:user']);
    expect(paths(await list({ prefix: 'privacy/' }, manager))).toEqual(everything);
    // Asking for a hidden level is an empty page, not a refusal.
    expect((await list({ prefix: 'privacy/', privacy: 'private' }, plain)).data).toEqual([]);
    expect(paths(await list({ prefix: 'privacy/', privacy: 'private' }, manager))).toEqual([
      'privacy/private.md',
    ]);
  });

  it('a hidden document answers 404, as a missing one does; a visible one has its content', async () => {
    const plain = await app('plain', ['svc:llm']);
    const pub = await ok<Doc>(await get({ path: 'privacy/public.md' }, plain));
    expect(pub).toMatchObject({ space: 'user', privacy: 'public', content: 'public text' });
    for (const path of ['privacy/private.md', 'privacy/friends.md', 'privacy/none.md']) {
      const res = await get({ space: 'user', path }, plain);
      expect(res.status).toBe(404);
      expect(await envelope(res)).toMatchObject({ code: 'not_found', field: 'path' });
    }
    const manager = await app('manager', ['svc:memory:manage:user']);
    expect(await ok<Doc>(await get({ path: 'privacy/private.md' }, manager))).toMatchObject({
      content: 'private text',
    });
  });

  it('a node needs svc:memory:read:user covering the path, then is filtered alike', async () => {
    const bare = await nodeToken(undefined, ['svc:llm']);
    const refused = await get({ path: 'privacy/public.md' }, bare.token);
    expect(await envelope(refused)).toMatchObject({
      code: 'scope_missing',
      field: 'svc:memory:read:user:/privacy/public.md',
    });
    const listed = await t.call('/v1/memory?prefix=privacy%2F', { token: bare.token });
    expect(await envelope(listed)).toMatchObject({ field: 'svc:memory:read:user:/privacy' });

    const plain = await nodeToken(undefined, ['svc:llm', 'svc:memory:read:user:/privacy']);
    expect(paths(await list({ prefix: 'privacy/' }, plain.token))).toEqual(['privacy/public.md']);
    expect((await get({ path: 'privacy/private.md' }, plain.token)).status).toBe(404);
    // The whole space needs the scope without a path.
    expect((await t.call('/v1/memory', { token: plain.token })).status).toBe(403);
    const manager = await nodeToken(undefined, ['svc:llm', 'svc:memory:manage:user']);
    expect(paths(await list({ prefix: 'privacy/' }, manager.token))).toEqual(everything);
  });
});

describe('app spaces', () => {
  let owner: string;
  beforeAll(async () => {
    owner = await app('notes', ['svc:llm']);
    await ok(await put({ space: 'app:notes', path: 'shared.md', content: 'a' }, owner));
    await ok(await put({ space: 'app:notes:profile:work', path: 'work.md', content: 'w' }, owner));
  });

  it("an app reads and writes its own space and its profiles' without a scope, in full", async () => {
    const doc = await ok<Doc>(await get({ space: 'app:notes', path: 'shared.md' }, owner));
    expect(doc).toMatchObject({ privacy: 'private', kind: 'knowledge', title: 'shared.md' });
    expect(paths(await list({ space: 'app:notes:profile:work' }, owner))).toEqual(['work.md']);
  });

  it("another app needs svc:memory:read:app:<id>; a :profile: scope reaches that profile's only", async () => {
    const stranger = await app('stranger', ['svc:llm']);
    const refused = await t.call('/v1/memory?space=app%3Anotes', { token: stranger });
    expect(refused.status).toBe(403);
    const res = await get({ space: 'app:notes', path: 'shared.md' }, stranger);
    expect(await envelope(res)).toMatchObject({
      code: 'scope_missing',
      field: 'svc:memory:read:app:notes',
    });

    const reader = await app('reader', ['svc:memory:read:app:notes']);
    expect(paths(await list({ space: 'app:notes' }, reader))).toEqual(['shared.md']);
    expect(paths(await list({ space: 'app:notes:profile:work' }, reader))).toEqual(['work.md']);

    const narrow = await app('narrow', ['svc:memory:read:app:notes:profile:work']);
    expect(paths(await list({ space: 'app:notes:profile:work' }, narrow))).toEqual(['work.md']);
    const wide = await get({ space: 'app:notes', path: 'shared.md' }, narrow);
    expect(await envelope(wide)).toMatchObject({
      code: 'scope_missing',
      field: 'svc:memory:read:app:notes',
    });
    const other = await get({ space: 'app:notes:profile:home', path: 'x.md' }, narrow);
    expect((await envelope(other)).field).toBe('svc:memory:read:app:notes:profile:home');
  });

  it("writing another app's space needs svc:memory:rw:app:<id>; read is not enough", async () => {
    const reader = await app('reader', ['svc:memory:read:app:notes']);
    const res = await put({ space: 'app:notes', path: 'shared.md', content: 'b' }, reader);
    expect(res.status).toBe(403);
    expect(await envelope(res)).toMatchObject({
      code: 'scope_missing',
      field: 'svc:memory:rw:app:notes',
    });
    const writer = await app('writer', ['svc:memory:rw:app:notes:profile:work']);
    const wrote = await ok<Doc>(
      await put({ space: 'app:notes:profile:work', path: 'work.md', content: 'w2' }, writer),
    );
    expect(wrote.version).toBe(2);
    expect((await put({ space: 'app:notes', path: 'x.md', content: 'b' }, writer)).status).toBe(
      403,
    );
    expect((await get({ space: 'app:notes', path: 'shared.md' }, owner)).status).toBe(200);
    expect((await ok<Doc>(await get({ space: 'app:notes', path: 'shared.md' }))).content).toBe('a');
  });
});

describe('node spaces', () => {
  it("a node reads and writes its own space and its app's; its app and the owner see its space", async () => {
    const appToken = await app('tasks', ['svc:llm', 'svc:act']);
    const node = await nodeToken(appToken);
    const own = `node:${node.id}`;
    await ok(await put({ space: own, path: 'scratch.md', content: 'mine' }, node.token));
    await ok(await put({ space: 'app:tasks', path: 'from-node.md', content: 'n' }, node.token));
    expect(paths(await list({ space: 'app:tasks' }, appToken))).toEqual(['from-node.md']);
    expect(paths(await list({ space: own }, appToken))).toEqual(['scratch.md']);
    expect(paths(await list({ space: own }))).toEqual(['scratch.md']);

    const sibling = await nodeToken(appToken);
    const res = await get({ space: own, path: 'scratch.md' }, sibling.token);
    expect(res.status).toBe(403);
    expect(await envelope(res)).toMatchObject({ code: 'forbidden', field: 'space' });
    const stranger = await app('stranger', ['svc:llm']);
    expect((await put({ space: own, path: 'x.md', content: 'x' }, stranger)).status).toBe(403);
    // A node the owner made inside the app's tree is the app's to see, so is its space.
    const inTree = await ok<{ id: string; app_id: string | null }>(
      await t.call(
        '/v1/nodes',
        json({
          task: 'owner-made child',
          parent_id: node.id,
          model: scripted('u', [{ text: 'x' }]),
        }),
      ),
    );
    expect((await t.call(`/v1/nodes/${inTree.id}`, { token: appToken })).status).toBe(200);
    const childSpace = { space: `node:${inTree.id}`, path: 'c.md', content: 'c' };
    expect((await put(childSpace, appToken)).status).toBe(200);
    // Another app's space still needs its scope, from a node as from its app.
    const other = await t.call('/v1/memory?space=app%3Anotes', { token: node.token });
    expect(await envelope(other)).toMatchObject({
      code: 'scope_missing',
      field: 'svc:memory:read:app:notes',
    });
  });
});

describe("writing the person's space", () => {
  it('needs svc:memory:rw:user covering the path, by whole segments', async () => {
    const none = await app('none', ['svc:memory:read:user']);
    const refused = await put({ path: 'prefs/food.md', content: 'x' }, none);
    expect(refused.status).toBe(403);
    expect(await envelope(refused)).toMatchObject({
      code: 'scope_missing',
      field: 'svc:memory:rw:user:/prefs/food.md',
    });
    const prefs = await app('prefs', ['svc:memory:rw:user:/prefs']);
    const made = await ok<Doc>(await put({ path: 'prefs/food.md', content: 'tea' }, prefs));
    // Default privacy: the most private level this writer can read back.
    expect(made).toMatchObject({ privacy: 'public', version: 1, title: 'food.md', size: 3 });
    expect((await put({ path: 'prefs/deep/er.md', content: 'x' }, prefs)).status).toBe(200);
    // A segment a scope cannot name (a space) is checked on the prefix a scope can name.
    expect((await put({ path: 'prefs/my notes.md', content: 'x' }, prefs)).status).toBe(200);
    const sibling = await put({ path: 'prefsx/a.md', content: 'x' }, prefs);
    expect(await envelope(sibling)).toMatchObject({
      code: 'scope_missing',
      field: 'svc:memory:rw:user:/prefsx/a.md',
    });
    const outside = await put({ path: 'my notes/a.md', content: 'x' }, prefs);
    expect((await envelope(outside)).field).toBe('svc:memory:rw:user');
  });

  it('without manage, only public documents: another level, or a hidden one, needs manage', async () => {
    await ok(await put({ path: 'guarded/secret.md', privacy: 'private', content: 'secret' }));
    const writer = await app('writer', ['svc:memory:rw:user']);
    for (const body of [
      { path: 'guarded/new.md', privacy: 'friends', content: 'x' },
      { path: 'guarded/secret.md', content: 'overwritten' },
      { path: 'guarded/secret.md', privacy: 'public', content: 'overwritten' },
    ]) {
      const res = await put(body, writer);
      expect(res.status).toBe(403);
      expect(await envelope(res)).toMatchObject({
        code: 'scope_missing',
        field: 'svc:memory:manage:user',
      });
    }
    expect((await del({ path: 'guarded/secret.md' }, writer)).status).toBe(404);
    const kept = await ok<Doc>(await get({ path: 'guarded/secret.md' }));
    expect(kept).toMatchObject({ content: 'secret', privacy: 'private', version: 1 });

    const manager = await app('manager', ['svc:memory:manage:user']);
    const made = await ok<Doc>(await put({ path: 'guarded/m.md', content: 'm' }, manager));
    expect(made.privacy).toBe('private');
    const changed = await ok<Doc>(
      await put({ path: 'guarded/secret.md', content: 'new', kind: 'preference' }, manager),
    );
    expect(changed).toMatchObject({ privacy: 'private', kind: 'preference', version: 2 });
    expect((await ok<Doc>(await get({ path: 'guarded/secret.md' }))).content).toBe('new');
  });

  it('an update keeps what it does not name; media_type null clears', async () => {
    await ok(
      await put({
        path: 'keep/doc.md',
        title: 'Doc',
        kind: 'preference',
        privacy: 'friends',
        media_type: 'text/markdown',
        content: 'one',
      }),
    );
    const two = await ok<Doc>(await put({ path: 'keep/doc.md', content: 'two' }));
    expect(two).toMatchObject({
      title: 'Doc',
      kind: 'preference',
      privacy: 'friends',
      media_type: 'text/markdown',
      version: 2,
      content: 'two',
    });
    const three = await ok<Doc>(await put({ path: 'keep/doc.md', media_type: null, content: '3' }));
    expect(three.media_type).toBeNull();
  });
});

describe('if_version', () => {
  it('0 creates only; a stale version is 409 conflict and changes nothing', async () => {
    const made = await ok<Doc>(await put({ path: 'v/doc.md', content: 'one', if_version: 0 }));
    expect(made.version).toBe(1);
    const again = await put({ path: 'v/doc.md', content: 'two', if_version: 0 });
    expect(again.status).toBe(409);
    expect(await envelope(again)).toMatchObject({
      code: 'conflict',
      field: 'if_version',
      received: 0,
    });
    const two = await ok<Doc>(await put({ path: 'v/doc.md', content: 'two', if_version: 1 }));
    expect(two.version).toBe(2);
    const stale = await put({ path: 'v/doc.md', content: 'three', if_version: 1 });
    expect(stale.status).toBe(409);
    expect((await ok<Doc>(await get({ path: 'v/doc.md' }))).content).toBe('two');

    expect((await del({ path: 'v/doc.md', if_version: '1' })).status).toBe(409);
    expect(await ok(await del({ path: 'v/doc.md', if_version: '2' }))).toEqual({
      space: 'user',
      path: 'v/doc.md',
      deleted: true,
    });
    expect((await get({ path: 'v/doc.md' })).status).toBe(404);
    expect((await del({ path: 'v/doc.md' })).status).toBe(404);
  });
});

describe('bad input: a clear 4xx and nothing changed', () => {
  it('paths, spaces, fields and sizes', async () => {
    const before = (await memoryEvents()).length;
    for (const path of ['/abs.md', 'a//b.md', 'a/../b.md', './a.md', 'a/', '', 'a\u0007b']) {
      const res = await put({ path, content: 'x' });
      expect(res.status, path).toBe(422);
      expect((await envelope(res)).field).toBe('path');
      expect((await get({ path })).status, path).toBe(422);
    }
    expect((await put({ path: 'x'.repeat(513), content: 'x' })).status).toBe(422);
    for (const space of ['users', 'app:Bad', 'app:a:profile', 'node:nd_x', 'app:a:other:b']) {
      const res = await put({ space, path: 'a.md', content: 'x' });
      expect(res.status, space).toBe(422);
      expect((await envelope(res)).field).toBe('space');
      expect((await t.call(`/v1/memory?space=${encodeURIComponent(space)}`)).status).toBe(422);
    }
    for (const body of [
      { path: 'a.md' },
      { path: 'a.md', content: 1 },
      { path: 'a.md', content: 'x', kind: 'note' },
      { path: 'a.md', content: 'x', privacy: 'secret' },
      { path: 'a.md', content: 'x', if_version: -1 },
      { path: 'a.md', content: 'x', media_type: 'markdown' },
      { path: 'a.md', content: 'x', title: '' },
      { path: 'a.md', content: 'x', extra: true },
    ]) {
      expect((await put(body)).status, JSON.stringify(body)).toBe(422);
    }
    const big = await put({ path: 'big.md', content: 'é'.repeat(131_073) });
    expect(big.status).toBe(413);
    expect(await envelope(big)).toMatchObject({ code: 'payload_too_large', field: 'content' });
    expect((await put({ path: 'big.md', content: 'x'.repeat(262_144) })).status).toBe(200);
    await ok(await del({ path: 'big.md' }));
    for (const query of ['limit=0', 'limit=201', 'kind=note', 'privacy=all', 'limit=x']) {
      expect((await t.call(`/v1/memory?${query}`)).status, query).toBe(422);
    }
    expect((await del({ path: 'a.md', if_version: 'one' })).status).toBe(422);
    expect((await get({ path: 'big.md' })).status).toBe(404);
    // Two events: the 256 KiB document's creation and its deletion.
    expect((await memoryEvents()).length).toBe(before + 2);
  });

  it('a refused write records no event; an unknown method is 405', async () => {
    const before = (await memoryEvents()).length;
    const plain = await app('plain', ['svc:llm']);
    expect((await put({ path: 'a.md', content: 'x' }, plain)).status).toBe(403);
    expect((await memoryEvents()).length).toBe(before);
    const res = await t.call('/v1/memory/document', { method: 'POST', ...json({}) });
    expect(res.status).toBe(405);
    expect((await t.call('/v1/memory', { token: null })).status).toBe(401);
  });
});

describe('listing', () => {
  it('pages by path with cursors; prefix and kind filter', async () => {
    for (const name of ['e', 'a', 'c', 'b', 'd']) {
      const kind = name === 'c' ? 'preference' : 'knowledge';
      await ok(await put({ space: 'app:lister', path: `list/${name}.md`, content: name, kind }));
    }
    await ok(await put({ space: 'app:lister', path: 'other/z.md', content: 'z' }));
    const seen: string[] = [];
    let after: string | undefined;
    for (let n = 0; n < 10; n++) {
      const page = await list({
        space: 'app:lister',
        prefix: 'list/',
        limit: '2',
        ...(after !== undefined && { after }),
      });
      expect(page.data.length).toBeLessThanOrEqual(2);
      expect(page.data.every((d) => d.content === undefined)).toBe(true);
      seen.push(...paths(page));
      if (!page.has_more) {
        expect(page.next_cursor).toBeNull();
        break;
      }
      after = page.next_cursor!;
    }
    expect(seen).toEqual(['a', 'b', 'c', 'd', 'e'].map((n) => `list/${n}.md`));
    expect(paths(await list({ space: 'app:lister', kind: 'preference' }))).toEqual(['list/c.md']);
    expect((await list({ space: 'app:lister' })).data).toHaveLength(6);
    expect((await list({ space: 'app:lister', prefix: 'nothing/' })).data).toEqual([]);
  });
});

describe('events', () => {
  it('each write records memory.document without the content, naming who acted', async () => {
    const writer = await app('eventful', ['svc:llm']);
    const before = (await memoryEvents()).length;
    await ok(await put({ space: 'app:eventful', path: 'e.md', content: 'hidden text' }, writer));
    await ok(await put({ space: 'app:eventful', path: 'e.md', content: 'more' }, writer));
    await ok(await del({ space: 'app:eventful', path: 'e.md' }));
    const events = (await memoryEvents()).slice(before);
    expect(events.map((e) => e.payload.action)).toEqual(['created', 'updated', 'deleted']);
    expect(events[0]).toMatchObject({
      subject_id: 'app:eventful',
      payload: {
        space: 'app:eventful',
        path: 'e.md',
        version: 1,
        size: 11,
        by: { kind: 'app', app_id: 'eventful', node_id: null },
      },
    });
    expect(events[2]!.payload.by).toEqual({ kind: 'owner', app_id: null, node_id: null });
    expect(JSON.stringify(events)).not.toContain('hidden text');
    expect(events.every((e) => !('content' in e.payload))).toBe(true);
  });
});
