/**
 * `canvas.history.grep`: a regular expression over the lines of the recorded turns, newest turns
 * first. The pattern must compile and must not nest unbounded repetition (422 otherwise); it runs
 * in a worker (`grep-worker.ts`) that is terminated at the time bound, so no pattern can hold the
 * daemon. Output is bounded by `limit`, the scan by a number of turns and of characters.
 */
import { Worker } from 'node:worker_threads';
import { nestedRepetition } from '@svc/plugin-kit/json-schema';
import type { HistoryGrepResult as GrepResult } from '@svc/protocol';
import { ApiError } from '../errors.ts';
import type { Visibility } from '../nodes/store/nodes.ts';
import type { Store } from '../store/index.ts';
import type { GrepDoc, GrepHit, GrepRequest, GrepWorkerData } from './grep-worker.ts';
import type { GrepRow } from './store.ts';

/** How long a grep may run in all, worker start included. */
const GREP_TIME_MS = 3_000;
/** Turns read per batch handed to the worker. */
const BATCH = 200;
/** The scan stops after this many turns, or this many characters of text, however few hits. */
const SCAN_TURNS_MAX = 20_000;
const SCAN_CHARS_MAX = 64 * 1024 * 1024;

const WORKER = new URL('./grep-worker.ts', import.meta.url);

/**
 * Greps running at once: each holds a worker thread that may spin for its whole time bound, and
 * the daemon's host may have few cores; one more is 429 `rate_limited`.
 */
const GREPS_AT_ONCE = 2;

/** The flags a grep compiles its pattern with; a pattern they refuse is 422. */
function checkPattern(pattern: string, ignoreCase: boolean): string {
  const flags = ignoreCase ? 'i' : '';
  try {
    new RegExp(pattern, flags);
  } catch (error) {
    throw new ApiError(
      'validation_failed',
      `pattern is not a valid regular expression: ${(error as Error).message}`,
      { field: 'pattern', received: pattern.slice(0, 200) },
    );
  }
  const nested = nestedRepetition(pattern);
  if (nested !== null) {
    throw new ApiError(
      'validation_failed',
      `pattern repeats a group that itself repeats (${nested.slice(0, 80)}), which can take exponential time; drop the outer or the inner repetition`,
      { field: 'pattern', received: pattern.slice(0, 200) },
    );
  }
  return flags;
}

/** What `canvas.history.grep` asks for; `signal` gives the scan up (the caller went away). */
export interface GrepQuery {
  pattern: string;
  ignoreCase: boolean;
  nodeId?: string | undefined;
  limit: number;
  signal: AbortSignal;
}

/** One daemon's grep, with its own count of greps running (several daemons share a process in tests). */
export function turnGrep(store: Store): (vis: Visibility, q: GrepQuery) => Promise<GrepResult> {
  let running = 0;
  return async function grepTurns(vis, q) {
    const flags = checkPattern(q.pattern, q.ignoreCase);
    if (running >= GREPS_AT_ONCE) {
      throw new ApiError(
        'rate_limited',
        `${running} greps are running, the most at once; try again when one has answered`,
      );
    }
    running++;
    try {
      return await scanTurns(store, vis, q, flags);
    } finally {
      running--;
    }
  };
}

async function scanTurns(
  store: Store,
  vis: Visibility,
  q: { pattern: string; nodeId?: string | undefined; limit: number; signal: AbortSignal },
  flags: string,
): Promise<GrepResult> {
  const hits: GrepHit[] = [];
  let scanned = 0;
  let chars = 0;
  let truncated = false;
  let timedOut = false;
  const runner = startRunner({ pattern: q.pattern, flags }, GREP_TIME_MS, q.signal);
  try {
    let before = Number.MAX_SAFE_INTEGER;
    for (;;) {
      const rows = store.canvas.grepPage(vis, { before, nodeId: q.nodeId, limit: BATCH });
      if (rows.length === 0) break;
      before = rows.at(-1)!.cursor;
      const docs = rows.map(toDoc);
      scanned += rows.length;
      const found = await runner.scan({ docs, max: q.limit - hits.length });
      if (found === null) {
        timedOut = truncated = true;
        break;
      }
      hits.push(...found);
      chars += docs.reduce((sum, d) => sum + d.parts.reduce((n, p) => n + p.text.length, 0), 0);
      if (hits.length >= q.limit || scanned >= SCAN_TURNS_MAX || chars >= SCAN_CHARS_MAX) {
        truncated = rows.length === BATCH || hits.length >= q.limit;
        break;
      }
      if (rows.length < BATCH) break;
    }
  } finally {
    await runner.stop();
  }
  return { data: hits, truncated, timed_out: timedOut, scanned_turns: scanned };
}

function toDoc(row: GrepRow): GrepDoc {
  const parts: GrepDoc['parts'] = [];
  for (const message of row.input) {
    parts.push({ where: 'input', text: message.text });
  }
  if (row.text !== '') parts.push({ where: 'text', text: row.text });
  for (const call of row.calls) {
    const output = call.output === null ? '' : ` → ${call.output}`;
    parts.push({ where: 'tool_call', text: `${call.name} ${call.input ?? ''}${output}` });
  }
  return { node_id: row.node_id, turn: row.idx, created_at: row.started_at, parts };
}

/**
 * The worker with a deadline: `scan` answers the batch's hits, or `null` once the deadline
 * passed (or the caller went away), after which the worker is terminated.
 */
function startRunner(data: GrepWorkerData, timeMs: number, signal: AbortSignal) {
  const worker = new Worker(WORKER, {
    workerData: data,
    resourceLimits: { maxOldGenerationSizeMb: 128 },
  });
  const deadline = Date.now() + timeMs;
  let failed: Error | null = null;
  worker.on('error', (error) => {
    failed = error;
  });
  return {
    scan(request: GrepRequest): Promise<GrepHit[] | null> {
      // A worker that failed (out of its heap on a huge batch) ends the scan as the deadline
      // does: what was found is answered, marked as stopped early, never a 500.
      if (failed !== null) return Promise.resolve(null);
      if (signal.aborted) return Promise.resolve(null);
      return new Promise((resolve) => {
        const done = (value: GrepHit[] | null) => {
          clearTimeout(timer);
          signal.removeEventListener('abort', onAbort);
          worker.off('message', onMessage);
          worker.off('error', onError);
          resolve(value);
        };
        const onMessage = (hits: GrepHit[]) => done(hits);
        const onError = (error: Error) => {
          failed = error;
          done(null);
        };
        const onAbort = () => done(null);
        const timer = setTimeout(() => done(null), Math.max(0, deadline - Date.now()));
        worker.on('message', onMessage);
        worker.once('error', onError);
        signal.addEventListener('abort', onAbort, { once: true });
        worker.postMessage(request);
      });
    },
    async stop(): Promise<void> {
      await worker.terminate();
    },
  };
}
