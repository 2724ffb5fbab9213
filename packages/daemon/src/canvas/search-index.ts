/**
 * The transcript index (`turn_search`, migration 013) kept up to date in batches. A record of a
 * turn, of a tool call or of its result marks the turn's document stale (migration 021); stale
 * documents are written again a batch per transaction, a moment after the records (so one FTS5
 * segment holds many turns, and each turn is tokenized once however many records it had), and
 * all of them before a search reads the index: a search finds every turn recorded before it.
 */
import type { Db } from '../store/db.ts';
import { DOC } from '../store/migrations/013-transcript-search.ts';

/** Turns written again per transaction (64 held the event loop 1.9 ms median, 5.3 p90, loaded). */
const BATCH = 32;
/** How long after the last record a catch-up starts: agents' records come in bursts. */
const QUIET_MS = 250;
/** A catch-up starts at the latest this long after the first record it is for. */
const STALE_MAX_MS = 2_000;

export function searchIndex(db: Db) {
  const q = {
    stale: db.sqlite.prepare('SELECT turn FROM turn_search_stale ORDER BY turn LIMIT ?'),
    anyStale: db.sqlite.prepare('SELECT 1 AS stale FROM turn_search_stale LIMIT 1'),
    drop: db.sqlite.prepare('DELETE FROM turn_search WHERE rowid = ?'),
    write: db.sqlite.prepare(
      `INSERT INTO turn_search (rowid, body, node_id, turn)
         SELECT t.rowid, ${DOC}, t.node_id, t.idx FROM turns t WHERE t.rowid = ?`,
    ),
    done: db.sqlite.prepare('DELETE FROM turn_search_stale WHERE turn = ?'),
  };
  /** Writes at most `max` stale documents again, in batches; answers how many it wrote. */
  function catchUp(max = Number.POSITIVE_INFINITY): number {
    let written = 0;
    while (written < max) {
      const turns = q.stale.all(Math.min(BATCH, max - written)) as { turn: number }[];
      if (turns.length === 0) break;
      db.transaction(() => {
        for (const { turn } of turns) {
          q.drop.run(turn);
          q.write.run(turn); // nothing when the turn is gone (its node deleted)
          q.done.run(turn);
        }
      });
      written += turns.length;
    }
    return written;
  }
  return {
    catchUp,
    /** Whether a document waits to be written again. */
    stale: () => q.anyStale.get() !== undefined,
  };
}

export type SearchIndex = ReturnType<typeof searchIndex>;

/**
 * Catches `index` up in the background: a batch at a time, the event loop turning between
 * batches, `QUIET_MS` after the records stop (`STALE_MAX_MS` at the latest) and at once when
 * started with stale documents. `touched` is called after each commit that may have marked one
 * (the event log's subscription: every record of a turn appends events). Answers its stop.
 */
export function keepSearchIndex(
  index: SearchIndex,
  touched: (listener: () => void) => () => void,
): () => void {
  let timer: NodeJS.Timeout | null = null;
  let since: number | null = null;
  let stopped = false;
  const run = () => {
    timer = null;
    if (stopped) return;
    since = null;
    if (index.catchUp(BATCH) === BATCH && !stopped) timer = setTimeout(run, 0).unref();
  };
  const schedule = () => {
    if (stopped) return;
    const now = Date.now();
    since ??= now;
    if (timer !== null) clearTimeout(timer);
    timer = setTimeout(run, Math.max(0, Math.min(QUIET_MS, since + STALE_MAX_MS - now)));
    timer.unref();
  };
  const unsubscribe = touched(schedule);
  if (index.stale()) schedule();
  return () => {
    stopped = true;
    unsubscribe();
    if (timer !== null) clearTimeout(timer);
  };
}
