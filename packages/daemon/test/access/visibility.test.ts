import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { type Sight, sees, sightFilter, sightOf } from '../../src/access/visibility.ts';
import type { Principal } from '../../src/ports.ts';

const owner: Principal = {
  tokenId: 't0',
  kind: 'owner',
  appId: null,
  nodeId: null,
  scopes: null,
  expiresAt: null,
};
const app = (appId: string, scopes: string[] = []): Principal => ({
  ...owner,
  kind: 'app',
  appId,
  scopes,
});
const node = (nodeId: string, appId: string | null = null): Principal => ({
  ...owner,
  kind: 'node',
  appId,
  nodeId,
  scopes: [],
});
const roots: Record<string, string> = { n_child: 'n_root' };
const rootOf = (id: string) => roots[id] ?? null;

const rows = [
  { id: 'r1', app_id: null, node_id: null, root_id: 'n_root' },
  { id: 'r2', app_id: 'app-a', node_id: 'n_child', root_id: 'n_root' },
  { id: 'r3', app_id: 'app-b', node_id: 'n_other', root_id: 'n_other' },
];

/** The ids a sight sees, by the predicate and by the SQL filter, which must agree. */
function seen(sight: Sight): string[] {
  const byPredicate = rows.filter((r) => sees(sight, r)).map((r) => r.id);
  const db = new DatabaseSync(':memory:');
  db.exec('CREATE TABLE t (id TEXT, app_id TEXT, node_id TEXT, root_id TEXT)');
  const insert = db.prepare('INSERT INTO t VALUES (?, ?, ?, ?)');
  for (const r of rows) insert.run(r.id, r.app_id, r.node_id, r.root_id);
  const where = sightFilter(sight, { app: 'app_id', node: 'node_id', root: 'root_id' });
  const bySql = db
    .prepare(`SELECT id FROM t WHERE ${where.sql} ORDER BY id`)
    .all(...where.params)
    .map((r) => r.id);
  expect(bySql).toEqual(byPredicate);
  return byPredicate;
}

describe('the visibility rules of the route table', () => {
  it('the owner sees every row under every rule', () => {
    for (const rule of [
      'own-app',
      'own-app-or-node',
      'with-owner',
      'tree',
      'objects-read',
    ] as const) {
      expect(seen(sightOf(rule, owner, rootOf))).toEqual(['r1', 'r2', 'r3']);
    }
  });

  it('own-app: an app its own rows, a node token none', () => {
    expect(seen(sightOf('own-app', app('app-a'), rootOf))).toEqual(['r2']);
    expect(seen(sightOf('own-app', node('n_child', 'app-a'), rootOf))).toEqual([]);
  });

  it("own-app-or-node: a node token its own node's rows", () => {
    expect(seen(sightOf('own-app-or-node', node('n_child', 'app-a'), rootOf))).toEqual(['r2']);
    expect(seen(sightOf('own-app-or-node', app('app-b'), rootOf))).toEqual(['r3']);
  });

  it("with-owner: an app the owner's rows and its own", () => {
    expect(seen(sightOf('with-owner', app('app-b'), rootOf))).toEqual(['r1', 'r3']);
  });

  it('tree: a node token its tree; a gone node nothing; tree-read adds the apps it may read', () => {
    expect(seen(sightOf('tree', node('n_child'), rootOf))).toEqual(['r1', 'r2']);
    expect(seen(sightOf('tree', node('n_gone'), rootOf))).toEqual([]);
    const reader = app('app-a', ['svc:conversations:read:app:app-b']);
    expect(seen(sightOf('tree', reader, rootOf))).toEqual(['r2']);
    expect(seen(sightOf('tree-read', reader, rootOf))).toEqual(['r2', 'r3']);
  });

  it('objects-read: its app and the apps its read scopes name; a publish token nothing', () => {
    expect(
      seen(sightOf('objects-read', app('app-a', ['svc:objects:read:app:app-b']), rootOf)),
    ).toEqual(['r2', 'r3']);
    expect(seen(sightOf('objects-read', { ...app('o1'), kind: 'publish' }, rootOf))).toEqual([]);
  });
});
