import type { EventRow } from '../store/events.ts';
import { mayReplay, nextTurn } from './replay-turns.ts';

/** Default interval of `: keepalive` comments, so proxies and clients see a live connection. */
export const SSE_KEEPALIVE_MS = 15_000;
const PAGE = 200;
const FINAL_FLUSH_MAX = 1_000;

/** Open event streams, so shutdown can end them cleanly instead of cutting connections. */
export function sseRegistry() {
  const open = new Set<() => void>();
  return {
    add(close: () => void): () => void {
      open.add(close);
      return () => open.delete(close);
    },
    closeAll(): void {
      for (const close of [...open]) close();
    },
    get size(): number {
      return open.size;
    },
  };
}

export type SseRegistry = ReturnType<typeof sseRegistry>;

/** What a stream reads of the event log (the event log service is one). */
export interface EventSource {
  /** The rows after `after` as stored, payload unparsed. */
  rows(after: number, limit: number, kinds?: readonly string[]): readonly EventRow[];
  lastSeq(): number;
  /** Whether events are committed that `rows` does not show yet (not durable yet). */
  pending(): boolean;
  /** Calls `listener` after every commit that appended events; returns the unsubscribe. */
  subscribe(listener: () => void): () => void;
}

/** An event made up by a stream's caller (an `EventDto`), written as its JSON. */
export interface MadeEvent {
  seq: number;
  kind: string;
}

export interface EventStreamOptions {
  after: number;
  kinds: readonly string[] | undefined;
  keepaliveMs: number;
  signal: AbortSignal;
  /**
   * Reads the next page after a seq; default the whole log (filtered by `kinds`). Rows as
   * stored go out as they are; events made up by the caller are written as JSON.
   */
  read?: ((after: number, limit: number) => readonly (EventRow | MadeEvent)[]) | undefined;
  /** `false`: end the stream once the backlog (what was committed before it opened) is sent. */
  follow?: boolean | undefined;
  /**
   * Whether the caller may still read: checked before every page and keepalive, so a stream a
   * viewer session or a bearer token opened ends once it is revoked or expires (`streamAlive`).
   */
  alive?: (() => boolean) | undefined;
  /**
   * Whether the subject is settled, nothing more to come on its own (a final node, a run whose
   * every node is final): once the backlog is sent then, the stream ends, telling the client to
   * reconnect at once (`retry: 1`), which its route answers 204, the end (WHATWG HTML §9.2.3).
   */
  settled?: (() => boolean) | undefined;
}

/**
 * The headers of an event stream's answer. `Svc-Keepalive-Ms` says how often a `: keepalive`
 * comment comes at the least, so a client can tell a quiet stream from a dead connection
 * whatever timeout it gives its requests.
 */
export function sseHeaders(keepaliveMs: number): Record<string, string> {
  return {
    'Content-Type': 'text/event-stream', // always UTF-8 (WHATWG HTML §9.2.5): no parameter
    'Cache-Control': 'no-cache',
    'X-Accel-Buffering': 'no',
    'Svc-Keepalive-Ms': String(keepaliveMs),
  };
}

/**
 * The event log from `after` on as SSE (WHATWG HTML §9.2): `id:` seq, `event:` kind, `data:` the
 * event. The stream subscribes before it reads anything and always reads the table by `seq >
 * last sent`, so the backlog flows into live events with no gap and no duplicate, and a reader
 * that falls behind just reads more rows instead of growing a buffer.
 */
export function eventStream(
  log: EventSource,
  registry: SseRegistry,
  { after, kinds, keepaliveMs, signal, read, follow = true, alive, settled }: EventStreamOptions,
): ReadableStream<Uint8Array> {
  const readLog = read ?? ((from: number, max: number) => log.rows(from, max, kinds));
  const backlogEnd = follow ? Number.POSITIVE_INFINITY : log.lastSeq();
  const readPage = follow
    ? readLog
    : (from: number, max: number) => readLog(from, max).filter((event) => event.seq <= backlogEnd);
  const encoder = new TextEncoder();
  let last = after;
  let closed = false;
  // Whether the log may hold rows past `last`: a commit came since the last read, or that read
  // filled its page. Not, the stream waits without reading again.
  let behind = true;
  let wake: (() => void) | null = null;
  const resume = () => wake?.();
  let cleanup = () => {};
  let abort = () => {};
  /** Enqueues up to `max` events after `last`; returns how many. */
  const send = (controller: ReadableStreamDefaultController<Uint8Array>, max: number) => {
    if (alive !== undefined && !alive()) {
      abort();
      return 0;
    }
    behind = false;
    const page = readPage(last, max);
    if (page.length === max) behind = true;
    if (page.length > 0) {
      controller.enqueue(frames(page, encoder));
      last = page.at(-1)!.seq;
    }
    return page.length;
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const unsubscribe = log.subscribe(() => {
        behind = true;
        onNextTurn(resume);
      });
      const keepalive = setInterval(() => {
        if (alive !== undefined && !alive()) abort();
        else controller.enqueue(encoder.encode(': keepalive\n\n'));
      }, keepaliveMs);
      abort = () => {
        if (closed) return;
        cleanup();
        controller.close();
      };
      // Shutdown: what was committed before it (`daemon.stopping` included) is sent, then the end.
      const finish = () => {
        if (!closed) send(controller, FINAL_FLUSH_MAX);
        abort();
      };
      const unregister = registry.add(finish);
      // A first byte at once: a proxy that holds the answer's head until the body starts (Vite's
      // dev server does) would otherwise keep the client waiting for the first event or keepalive.
      controller.enqueue(encoder.encode(': open\n\n'));
      cleanup = () => {
        closed = true;
        clearInterval(keepalive);
        unsubscribe();
        unregister();
        signal.removeEventListener('abort', abort);
        wake?.();
      };
      signal.addEventListener('abort', abort);
    },
    async pull(controller) {
      // Every page waits its turn: a long backlog never holds the daemon (`./replay-turns.ts`).
      while (!mayReplay()) await nextTurn();
      while (!closed && (!behind || send(controller, PAGE) === 0)) {
        if (closed) return; // `send` ended it: the caller's token or session no longer holds
        // Not with events still on their way to the disk: they may be this stream's last.
        if (!log.pending()) {
          if (!follow) return abort();
          if (settled?.()) {
            controller.enqueue(encoder.encode('retry: 1\n\n'));
            return abort();
          }
        }
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = null;
      }
    },
    cancel() {
      cleanup();
    },
  });
}

/**
 * The streams to wake on the event loop's next turn. The commits of one turn then go out
 * together: one read of the log and one write per stream, however many there were.
 */
const woken = new Set<() => void>();

function onNextTurn(resume: () => void): void {
  if (woken.size === 0) setImmediate(wakeAll);
  woken.add(resume);
}

function wakeAll(): void {
  const all = [...woken];
  woken.clear();
  for (const resume of all) resume();
}

/**
 * A page's frames, encoded once however many streams send it: the streams one commit wakes are
 * handed the very same page by the log (`EventLog.rows`), so the bytes are kept with it.
 */
const encoded = new WeakMap<readonly (EventRow | MadeEvent)[], Uint8Array>();

function frames(page: readonly (EventRow | MadeEvent)[], encoder: TextEncoder): Uint8Array {
  let bytes = encoded.get(page);
  if (bytes === undefined) {
    bytes = encoder.encode(page.map(frame).join(''));
    encoded.set(page, bytes);
  }
  return bytes;
}

/**
 * One event as SSE, its `data` the event's JSON (`EventDto`, keys in its order). The payload is
 * stored as `JSON.stringify` wrote it, so it goes out as it is: parsing and writing it again
 * would give the same text at most of a replay's cost. Text with a line break in it (none that
 * the daemon writes) is written again, as `data:` holds one line.
 */
function frame(event: EventRow | MadeEvent): string {
  return `id: ${event.seq}\nevent: ${event.kind}\ndata: ${'subject' in event ? rowJson(event) : JSON.stringify(event)}\n\n`;
}

/** A row as its `EventDto`'s JSON (its keys, in their order). */
function rowJson(row: EventRow): string {
  const payload = row.payload.includes('\n')
    ? JSON.stringify(JSON.parse(row.payload))
    : row.payload;
  return `{"seq":${row.seq},"kind":${JSON.stringify(row.kind)},"subject_id":${JSON.stringify(row.subject)},"payload":${payload},"created_at":${JSON.stringify(row.created_at)}}`;
}
