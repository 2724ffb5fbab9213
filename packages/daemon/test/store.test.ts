import { rmSync, writeFileSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { eventLog } from '../src/events/log.ts';
import { acquireLock, readLock, releaseLock } from '../src/lifecycle/lock.ts';
import { TO_CANCEL } from '../src/nodes/store/jobs.ts';
import { openStore, type Store } from '../src/store/index.ts';
import { migrations } from '../src/store/migrations/index.ts';
import { tokenService } from '../src/tokens/service.ts';
import { tempHome } from './helpers.ts';

const stores: Store[] = [];
const homes: string[] = [];
afterAll(() => {
  for (const s of stores) s.db.close();
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

function newHome(): string {
  const dir = tempHome();
  homes.push(dir);
  return dir;
}

function freshStore(home = newHome()) {
  const store = openStore(`${home}/svc.db`);
  stores.push(store);
  return { store, home };
}

describe('store', () => {
  it('runs in WAL mode with synchronous=NORMAL (group commit) and numbered migrations recorded', () => {
    const { store, home } = freshStore();
    expect(store.db.sqlite.prepare('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' });
    expect(store.db.sqlite.prepare('PRAGMA synchronous').get()).toEqual({ synchronous: 1 });
    expect(store.db.sqlite.prepare('PRAGMA user_version').get()).toEqual({
      user_version: migrations.length,
    });
    store.db.close();
    expect(() => freshStore(home)).not.toThrow(); // reopening migrates nothing twice
  });

  it("reads a directive's jobs to cancel by their own index, not by walking the node's jobs", () => {
    const { store } = freshStore();
    const plan = store.db.sqlite.prepare(`EXPLAIN QUERY PLAN ${TO_CANCEL}`).all('node_x');
    expect(plan.map((step) => step.detail)).toEqual([
      expect.stringContaining('USING INDEX jobs_to_cancel'),
    ]);
  });

  it('refuses a database from a newer daemon', () => {
    const home = newHome();
    const raw = new DatabaseSync(`${home}/svc.db`);
    raw.exec(`PRAGMA user_version = ${migrations.length + 1}`);
    raw.close();
    expect(() => openStore(`${home}/svc.db`)).toThrow(/newer than this daemon/);
  });

  it('a failed transaction keeps neither the state nor its event, and notifies no one', async () => {
    const { store } = freshStore();
    const events = eventLog(store);
    let woken = 0;
    events.subscribe(() => woken++);
    expect(() =>
      store.db.transaction(() => {
        store.tokens.insert({
          id: 'tok_x',
          kind: 'app',
          hash: new Uint8Array(32),
          app_id: 'a',
          scopes: [],
          created_at: 'now',
          expires_at: null,
        });
        events.record('token.created', 'tok_x', {});
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(store.tokens.byId('tok_x')).toBeUndefined();
    expect(events.lastSeq()).toBe(0);
    expect(woken).toBe(0);
    events.record('daemon.started', null, {});
    expect(woken).toBe(0); // not before its commit is durable
    await store.db.durable();
    expect(woken).toBe(1);
  });

  it('stores only the SHA-256 of a token, and writes last_used_at at most once a minute', () => {
    const { store, home } = freshStore();
    const tokens = tokenService(store, eventLog(store));
    const { secret, dto } = tokens.mintApp('app', ['svc:llm'], null);
    const row = store.tokens.byId(dto.id)!;
    expect(Buffer.from(row.hash).toString('hex')).toHaveLength(64);
    expect(JSON.stringify(store.db.sqlite.prepare('SELECT * FROM tokens').all())).not.toContain(
      secret,
    );
    expect(tokens.authenticate(secret)?.tokenId).toBe(dto.id);
    const firstUse = store.tokens.byId(dto.id)!.last_used_at;
    expect(firstUse).not.toBeNull();
    store.tokens.touch(dto.id, 'marker');
    tokens.authenticate(secret);
    expect(store.tokens.byId(dto.id)!.last_used_at).toBe('marker');
    expect(
      tokens.authenticate(secret.slice(0, -1) + (secret.endsWith('A') ? 'B' : 'A')),
    ).toBeNull();
    // The owner token is reused across restarts and re-minted (old one revoked) when the file changes.
    const owner = tokens.ensureOwner(`${home}/owner.token`);
    expect(tokens.ensureOwner(`${home}/owner.token`).id).toBe(owner.id);
    writeFileSync(`${home}/owner.token`, 'svc_owner_tampered\n');
    const rotated = tokens.ensureOwner(`${home}/owner.token`);
    expect(rotated.id).not.toBe(owner.id);
    expect(tokens.get(owner.id)?.revoked_at).not.toBeNull();
  });
});

describe('lock', () => {
  it('one holder per home; a stale lock is taken over', () => {
    const home = newHome();
    expect(readLock(home)).toBeNull();
    acquireLock(home);
    expect(readLock(home)?.pid).toBe(process.pid);
    expect(() => acquireLock(home)).toThrow(
      `another svc daemon (pid ${process.pid}) is running on ${home}`,
    );
    releaseLock(home);
    expect(readLock(home)).toBeNull();
    writeFileSync(`${home}/daemon.lock`, JSON.stringify({ pid: 2 ** 22 + 12345, started_at: 'x' }));
    expect(readLock(home)).toBeNull();
    expect(acquireLock(home).pid).toBe(process.pid);
    releaseLock(home);
  });
});
