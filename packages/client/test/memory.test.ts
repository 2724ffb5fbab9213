/**
 * `client.memory` against a real daemon over its TCP listener: `list` (one page), `listAll` (every
 * page of `list`), `get`, the privacy filter as an app sees it, and the local argument checks
 * that throw before any request.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DaemonHandle, startDaemon } from '@svc/daemon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type MemoryDocument,
  NotFoundError,
  PermissionDeniedError,
  Svc,
  UnprocessableEntityError,
} from '../src/index.ts';

let home: string;
let daemon: DaemonHandle;
let baseUrl: string;
let owner: Svc;
/** Every URL the owner's client asked for, in order. */
const sent: string[] = [];

function clientFor(token: string, log: string[] = []): Svc {
  return new Svc({
    baseUrl,
    token,
    maxRetries: 0,
    fetch: (url, init) => {
      log.push(String(url));
      return fetch(url, init);
    },
  });
}

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'svc-cm-'));
  daemon = await startDaemon({ home, logLevel: 'warn' });
  baseUrl = (await daemon.enableTcp({ host: '127.0.0.1', port: 0 })).base_url;
  owner = clientFor(readFileSync(join(home, 'owner.token'), 'utf8').trim(), sent);
  for (const [path, privacy] of [
    ['prefs/a.md', 'public'],
    ['prefs/b.md', 'private'],
    ['prefs/c.md', 'public'],
    ['prefs/d.md', 'friends'],
    ['prefs/e.md', 'public'],
    ['notes/x.md', 'public'],
  ]) {
    await owner.request('PUT', '/v1/memory/document', { path, privacy, content: `${path}!` });
  }
});
afterAll(async () => {
  await daemon.close();
  rmSync(home, { recursive: true, force: true });
});

async function appClient(scopes: string[]): Promise<Svc> {
  const minted = await owner.request<{ token: string }>('POST', '/v1/connect', {
    app_id: 'reader',
    scopes,
  });
  return clientFor(minted.token);
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

describe('client.memory', () => {
  it('list answers one page; listAll walks every page of list', async () => {
    const page = await owner.memory.list({ prefix: 'prefs/', limit: 2 });
    expect(page.data.map((d) => d.path)).toEqual(['prefs/a.md', 'prefs/b.md']);
    expect(page).toMatchObject({ has_more: true, next_cursor: 'prefs/b.md' });
    expect(page.data[0]).not.toHaveProperty('content');

    sent.length = 0;
    const all = await collect(owner.memory.listAll({ prefix: 'prefs/', limit: 2 }));
    expect(all.map((d) => d.path)).toEqual(['a', 'b', 'c', 'd', 'e'].map((n) => `prefs/${n}.md`));
    // Three pages of two: the first without a cursor, the others after the last path.
    expect(sent).toHaveLength(3);
    expect(new URL(sent[0]!).searchParams.get('after')).toBeNull();
    expect(new URL(sent[2]!).searchParams.get('after')).toBe('prefs/d.md');
    // `after` starts the walk later.
    const rest = await collect(owner.memory.listAll({ prefix: 'prefs/', after: 'prefs/c.md' }));
    expect(rest.map((d) => d.path)).toEqual(['prefs/d.md', 'prefs/e.md']);
  });

  it('get answers the document with its content', async () => {
    const doc: MemoryDocument = await owner.memory.get({ path: 'prefs/b.md' });
    expect(doc).toMatchObject({ space: 'user', privacy: 'private', content: 'prefs/b.md!' });
    await expect(owner.memory.get({ space: 'user', path: 'prefs/none.md' })).rejects.toBeInstanceOf(
      NotFoundError,
    );
  });

  it('an app sees public documents only; a hidden one is NotFoundError; manage sees all', async () => {
    const app = await appClient(['svc:llm']);
    const seen = await collect(app.memory.listAll({ prefix: 'prefs/', limit: 1 }));
    expect(seen.map((d) => d.path)).toEqual(['prefs/a.md', 'prefs/c.md', 'prefs/e.md']);
    await expect(app.memory.get({ path: 'prefs/b.md' })).rejects.toBeInstanceOf(NotFoundError);
    await expect(app.memory.list({ space: 'app:other' })).rejects.toBeInstanceOf(
      PermissionDeniedError,
    );
    const manager = await appClient(['svc:memory:manage:user']);
    expect(await collect(manager.memory.listAll({ prefix: 'prefs/' }))).toHaveLength(5);
    expect((await manager.memory.get({ path: 'prefs/d.md' })).privacy).toBe('friends');
  });

  it('the daemon checks paths and query values: UnprocessableEntityError', async () => {
    await expect(owner.memory.get({ path: '../etc/passwd' })).rejects.toBeInstanceOf(
      UnprocessableEntityError,
    );
    await expect(owner.memory.list({ limit: 0 })).rejects.toBeInstanceOf(UnprocessableEntityError);
  });

  it('bad arguments throw TypeError before any request', async () => {
    sent.length = 0;
    const bad: [string, () => unknown][] = [
      ['get without path', () => owner.memory.get({} as never)],
      ['get with an empty path', () => owner.memory.get({ path: '' })],
      ['get with a bad space', () => owner.memory.get({ space: 'users', path: 'a' })],
      ['get with no params', () => owner.memory.get(null as never)],
      ['list with a bad space', () => owner.memory.list({ space: 'app:Bad' })],
      ['list with a node space that is no node id', () => owner.memory.list({ space: 'node:x' })],
      ['listAll with a bad space', () => owner.memory.listAll({ space: 'app:a:profile' })],
      ['listAll with a string', () => owner.memory.listAll('user' as never)],
    ];
    for (const [what, call] of bad) expect(call, what).toThrow(TypeError);
    expect(sent).toEqual([]);
  });
});
