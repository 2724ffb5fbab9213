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
 * Catches `index` up in the background: `QUIET_MS` after the records stop (`STALE_MAX_MS` after
 * the first at the latest), and soon after its start when a daemon left documents stale; a batch
 * at a time, the event loop turning between batches. `touched` subscribes a listener called after
 * each commit that may have marked one (the event log's: every record of a turn appends events);
 * that listener only notes the time, so the commits of a busy daemon arm no timer each. Answers
 * its stop.
 */
export function keepSearchIndex(
  index: SearchIndex,
  touched: (listener: () => void) => () => void,
): () => void {
  let timer: NodeJS.Timeout | null = null;
  // The first and the last record since the last catch-up began; `null`: none.
  let first: number | null = null;
  let last = 0;
  let stopped = false;
  const arm = (run: () => void, ms: number) => {
    timer = setTimeout(run, ms);
    timer.unref();
  };
  const batch = () => {
    timer = null;
    if (stopped) return;
    if (index.catchUp(BATCH) === BATCH) arm(batch, 0);
    else if (first !== null) arm(due, QUIET_MS); // records came while it ran
  };
  const due = () => {
    timer = null;
    if (stopped || first === null) return;
    const wait = Math.min(last + QUIET_MS, first + STALE_MAX_MS) - Date.now();
    if (wait > 0) return arm(due, wait);
    first = null;
    batch();
  };
  const recorded = () => {
    last = Date.now();
    first ??= last;
    if (timer === null && !stopped) arm(due, QUIET_MS);
  };
  const unsubscribe = touched(recorded);
  if (index.stale()) recorded();
  return () => {
    stopped = true;
    unsubscribe();
    if (timer !== null) clearTimeout(timer);
  };
}
