/**
 * Migration 013's full-text index of turns: it indexes the turns a database already holds, and
 * its triggers follow inserts, tool results, forks' copies and deletions.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../src/store/index.ts';
import { sql as transcriptSearch } from '../src/store/migrations/013-transcript-search.ts';
import { migrations } from '../src/store/migrations/index.ts';
import { tempHome } from './helpers.ts';

const home = tempHome('svc-fts-');
afterAll(() => rmSync(home, { recursive: true, force: true }));

function addNode(store: ReturnType<typeof openStore>, id: string): void {
  const at = new Date().toISOString();
  store.db.sqlite
    .prepare(
      `INSERT INTO nodes (id, root_id, profile, title, task, state, model, budgets, created_at, updated_at)
       VALUES (?, ?, 'default', 't', 't', 'queued', '{"provider":"scripted","model":"m"}', '{}', ?, ?)`,
    )
    .run(id, id, at, at);
}

function addTurn(store: ReturnType<typeof openStore>, nodeId: string, index: number, text: string) {
  const at = new Date().toISOString();
  store.turns.insert({
    node_id: nodeId,
    index,
    model: { provider: 'scripted', model: 'm' },
    input: [],
    text,
    tool_calls: [{ id: `c${index}`, name: 'bash', input: { command: 'ls' } }],
    usage: { input_tokens: 1, output_tokens: 1 },
    cost_usd: null,
    finish_reason: 'stop',
    started_at: at,
    finished_at: at,
    fingerprint: `f${index}`,
  });
}

const hits = (store: ReturnType<typeof openStore>, word: string) =>
  (
    store.db.sqlite
      .prepare('SELECT node_id, turn FROM turn_search WHERE turn_search MATCH ? ORDER BY rowid')
      .all(`"${word}"`) as { node_id: string; turn: number }[]
  ).map((r) => `${r.node_id}#${r.turn}`);

describe('the turn search index', () => {
  const path = join(home, 'svc.db');
  const A = 'nd_01ARZ3NDEKTSV4RRFFQ69G5FAA';
  const B = 'nd_01ARZ3NDEKTSV4RRFFQ69G5FAB';

  it('indexes the turns recorded before the migration', () => {
    const store = openStore(path);
    addNode(store, A);
    addTurn(store, A, 1, 'an older walrus');
    // Back to a database without 013's index, with the turn already there; then 013 as it runs
    // (its SQL alone: the migrations after it need not be undone for this).
    store.db.sqlite.exec(`
      DROP TRIGGER turns_search_insert; DROP TRIGGER turns_search_delete;
      DROP TRIGGER tool_calls_search_insert; DROP TRIGGER tool_calls_search_update;
      DROP TABLE turn_search;`);
    expect(migrations).toContain(transcriptSearch);
    store.db.sqlite.exec(transcriptSearch);
    expect(hits(store, 'walrus')).toEqual([`${A}#1`]);
    store.db.close();
  });

  it('follows new turns, tool results, copies and deletions', () => {
    const store = openStore(path);
    addTurn(store, A, 2, 'a newer narwhal');
    expect(hits(store, 'narwhal')).toEqual([`${A}#2`]);
    store.turns.settleToolCall(A, 'c2', {
      status: 'ok',
      output: 'found a pelican',
      job_id: null,
      finished_at: new Date().toISOString(),
    });
    expect(hits(store, 'pelican')).toEqual([`${A}#2`]);
    // Still one document per turn after the rewrite.
    expect(hits(store, 'narwhal')).toEqual([`${A}#2`]);
    addNode(store, B);
    store.turns.copy(A, B, 2);
    expect(hits(store, 'pelican')).toEqual([`${A}#2`, `${B}#2`]);
    store.nodes.deleteTree(A);
    expect(hits(store, 'pelican')).toEqual([`${B}#2`]);
    expect(hits(store, 'walrus')).toEqual([`${B}#1`]);
    store.db.close();
  });
});
