/**
 * The full-text index of turns: migration 013 indexes the turns a database already holds; since
 * 021, a record marks its turn stale and `searchIndex` writes the stale turns again in batches,
 * following inserts, tool results, forks' copies and deletions, and `keepSearchIndex` does so a
 * moment after the records, with no search asking.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { keepSearchIndex, searchIndex } from '../src/canvas/search-index.ts';
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
  const A = 'nd_01ARZ3NDEKTSV4RRFFQ69G5FAA';
  const B = 'nd_01ARZ3NDEKTSV4RRFFQ69G5FAB';

  it('013 indexes the turns recorded before it', () => {
    const store = openStore(join(home, 'before.db'));
    addNode(store, A);
    addTurn(store, A, 1, 'an older walrus');
    // Back to a database without 013's index, with the turn already there; then 013 as it ran
    // (its SQL alone: the migrations after it need not be undone for this).
    store.db.sqlite.exec('DROP TRIGGER turns_search_delete; DROP TABLE turn_search;');
    expect(migrations).toContain(transcriptSearch);
    store.db.sqlite.exec(transcriptSearch);
    expect(hits(store, 'walrus')).toEqual([`${A}#1`]);
    store.db.close();
  });

  it('follows new turns, tool results, copies and deletions once caught up, not in their commits', () => {
    const store = openStore(join(home, 'follow.db'));
    const index = searchIndex(store.db);
    addNode(store, A);
    addTurn(store, A, 1, 'a walrus');
    addTurn(store, A, 2, 'a newer narwhal');
    expect(hits(store, 'narwhal')).toEqual([]);
    expect(index.stale()).toBe(true);
    expect(index.catchUp()).toBe(2);
    expect(index.stale()).toBe(false);
    expect(hits(store, 'narwhal')).toEqual([`${A}#2`]);
    store.turns.settleToolCall(A, 'c2', {
      status: 'ok',
      output: 'found a pelican',
      job_id: null,
      finished_at: new Date().toISOString(),
    });
    expect(hits(store, 'pelican')).toEqual([]);
    expect(index.catchUp()).toBe(1);
    expect(hits(store, 'pelican')).toEqual([`${A}#2`]);
    // Still one document per turn after the rewrite.
    expect(hits(store, 'narwhal')).toEqual([`${A}#2`]);
    addNode(store, B);
    store.turns.copy(A, B, 2);
    expect(index.catchUp()).toBe(2);
    expect(hits(store, 'pelican')).toEqual([`${A}#2`, `${B}#2`]);
    // A deletion drops its documents at once, and its stale marks with them.
    addTurn(store, A, 3, 'a late lobster');
    store.nodes.deleteTree(A);
    expect(hits(store, 'pelican')).toEqual([`${B}#2`]);
    expect(hits(store, 'walrus')).toEqual([`${B}#1`]);
    expect(index.stale()).toBe(false);
    expect(index.catchUp()).toBe(0);
    store.db.close();
  });

  it('writes at most what it is asked, in batches, each turn once', () => {
    const store = openStore(join(home, 'batches.db'));
    const index = searchIndex(store.db);
    addNode(store, A);
    for (let i = 1; i <= 150; i++) addTurn(store, A, i, `turn number${i}`);
    expect(index.catchUp(100)).toBe(100);
    expect(hits(store, 'number100')).toEqual([`${A}#100`]);
    expect(hits(store, 'number101')).toEqual([]);
    expect(index.catchUp()).toBe(50);
    expect(hits(store, 'number150')).toEqual([`${A}#150`]);
    const documents = store.db.sqlite.prepare('SELECT count(*) AS n FROM turn_search').get();
    expect(documents).toEqual({ n: 150 });
    store.db.close();
  });

  it('is caught up in the background a moment after the records, with no search asking', () => {
    vi.useFakeTimers();
    const store = openStore(join(home, 'background.db'));
    try {
      const index = searchIndex(store.db);
      let touched = () => {};
      const stop = keepSearchIndex(index, (listener) => {
        touched = listener;
        return () => {
          touched = () => {};
        };
      });
      addNode(store, A);
      addTurn(store, A, 1, 'a quiet octopus');
      touched();
      vi.advanceTimersByTime(100);
      expect(hits(store, 'octopus')).toEqual([]);
      // Records that keep coming hold it back, but not past 2 s after the first.
      for (let i = 0; i < 20; i++) {
        touched();
        vi.advanceTimersByTime(100);
      }
      expect(hits(store, 'octopus')).toEqual([`${A}#1`]);
      addTurn(store, A, 2, 'a second squid');
      touched();
      vi.advanceTimersByTime(250);
      expect(hits(store, 'squid')).toEqual([`${A}#2`]);
      stop();
      addTurn(store, A, 3, 'an unseen eel');
      touched();
      vi.advanceTimersByTime(5_000);
      expect(hits(store, 'eel')).toEqual([]);
    } finally {
      vi.useRealTimers();
      store.db.close();
    }
  });

  it('catches up at its start what a daemon left stale', () => {
    vi.useFakeTimers();
    const store = openStore(join(home, 'restart.db'));
    try {
      addNode(store, A);
      addTurn(store, A, 1, 'a leftover lamprey');
      const stop = keepSearchIndex(searchIndex(store.db), () => () => {});
      vi.advanceTimersByTime(250);
      expect(hits(store, 'lamprey')).toEqual([`${A}#1`]);
      stop();
    } finally {
      vi.useRealTimers();
      store.db.close();
    }
  });
});
