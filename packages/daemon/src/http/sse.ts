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
 * Where a stream's bytes go: the socket under its answer (`sse-socket.ts`), or a test's reader
 * (`readable`). The stream hands it the same bytes for every watcher of a page, so a sink may
 * keep what it makes of them (its framing) with them.
 */
export interface SseSink {
  /** Sends `bytes`; `false` once the sink holds as much as it should: wait for `onDrain`. */
  write(bytes: Uint8Array): boolean;
  /** Calls `resume` once, when the sink has room again. */
  onDrain(resume: () => void): void;
  /** The end of the answer, after what was written. */
  end(): void;
  /** Cuts the answer short: the stream failed. */
  destroy(): void;
}

/**
 * An SSE answer: written straight to its response's socket by `writeReply` (`reply.ts`), one
 * write per page, with no web stream in between (a `ReadableStream` per watcher, its promises
 * and its pipe cost more than the page's bytes did, for 50 watchers of every event).
 */
export class SseBody {
  readonly #start: (sink: SseSink) => void;
  readonly #cancel: () => void;
  constructor(start: (sink: SseSink) => void, cancel: () => void) {
    this.#start = start;
    this.#cancel = cancel;
  }
  /** Starts sending to `sink`; once only. */
  start(sink: SseSink): void {
    this.#start(sink);
  }
  /** The client is gone (or never wanted the body): stop, write nothing more. */
  cancel(): void {
    this.#cancel();
  }
}

const bytesOf = (text: string) => new TextEncoder().encode(text);
// The same bytes each time: a sink keeps its framing of them once for all streams.
const OPEN = bytesOf(': open\n\n');
const KEEPALIVE = bytesOf(': keepalive\n\n');
const RETRY_AT_ONCE = bytesOf('retry: 1\n\n');

/**
 * The event log from `after` on as SSE (WHATWG HTML §9.2): `id:` seq, `event:` kind, `data:` the
 * event. The stream subscribes before it reads anything and always reads the table by `seq >
 * last sent`, so the backlog flows into live events with no gap and no duplicate, and a reader
 * that falls behind just reads more rows instead of growing a buffer: a page is read only when
 * its sink has room (a slow watcher holds at most a page beyond its socket's buffer).
 */
export function eventStream(
  log: EventSource,
  registry: SseRegistry,
  { after, kinds, keepaliveMs, signal, read, follow = true, alive, settled }: EventStreamOptions,
): SseBody {
  const readLog = read ?? ((from: number, max: number) => log.rows(from, max, kinds));
  const backlogEnd = follow ? Number.POSITIVE_INFINITY : log.lastSeq();
  const readPage = follow
    ? readLog
    : (from: number, max: number) => readLog(from, max).filter((event) => event.seq <= backlogEnd);
  let sink: SseSink | null = null;
  let last = after;
  let closed = false;
  let started = false;
  // Whether the log may hold rows past `last`: a commit came since the last read, or that read
  // filled its page. Not, the stream waits for the next commit without reading again.
  let behind = true;
  // Whether the sink is full: nothing is read until it drains.
  let blocked = false;
  // Whether `pump` runs, or waits its turn to replay: a wake-up meanwhile finds it going.
  let pumping = false;
  let waitingTurn = false;
  let cleanup = () => {};

  const write = (bytes: Uint8Array) => {
    if (!sink!.write(bytes) && !closed) {
      blocked = true;
      sink!.onDrain(() => {
        blocked = false;
        pump();
      });
    }
  };
  const end = () => {
    if (closed) return;
    cleanup();
    sink?.end();
  };
  /** Writes up to `max` events after `last`; returns how many. */
  const send = (max: number) => {
    if (alive !== undefined && !alive()) {
      end();
      return 0;
    }
    behind = false;
    const page = readPage(last, max);
    if (page.length === max) behind = true;
    if (page.length > 0) {
      last = page.at(-1)!.seq;
      write(frames(page));
    }
    return page.length;
  };
  /**
   * Sends what there is to send, page by page while the sink has room, each page in its turn
   * (`./replay-turns.ts`: a long backlog never holds the daemon); then ends the stream if it is
   * done, or waits for the next commit (`subscribe`) or the sink's drain.
   */
  const pump = (): void => {
    if (pumping || waitingTurn || closed || sink === null) return;
    pumping = true;
    try {
      while (!closed && !blocked) {
        if (behind) {
          if (!mayReplay()) {
            waitingTurn = true;
            void nextTurn().then(() => {
              waitingTurn = false;
              pump();
            });
            return;
          }
          if (send(PAGE) > 0) continue;
          if (closed) return; // `send` ended it: the caller's token or session no longer holds
        }
        // All sent. Not ended with events still on their way to the disk: they may be this
        // stream's last, and their commit's wake-up comes after the flush.
        if (!log.pending()) {
          if (!follow) {
            end();
          } else if (settled?.()) {
            write(RETRY_AT_ONCE);
            end();
          }
        }
        return;
      }
    } catch {
      // A read failed: the status is sent, so all that is left is to cut the answer short.
      cleanup();
      sink.destroy();
    } finally {
      pumping = false;
    }
  };

  const start = (to: SseSink) => {
    if (started || closed) return;
    started = true;
    sink = to;
    const unsubscribe = log.subscribe(() => {
      behind = true;
      onNextTurn(pump);
    });
    const keepalive = setInterval(() => {
      if (alive !== undefined && !alive()) end();
      else if (!blocked) write(KEEPALIVE); // a full socket shows the client a live connection
    }, keepaliveMs);
    // Shutdown: what was committed before it (`daemon.stopping` included) is sent, then the end.
    const finish = () => {
      if (!closed) send(FINAL_FLUSH_MAX);
      end();
    };
    const unregister = registry.add(finish);
    cleanup = () => {
      closed = true;
      clearInterval(keepalive);
      unsubscribe();
      unregister();
      signal.removeEventListener('abort', end);
    };
    signal.addEventListener('abort', end);
    // A first byte at once: a proxy that holds the answer's head until the body starts (Vite's
    // dev server does) would otherwise keep the client waiting for the first event or keepalive.
    write(OPEN);
    pump();
  };
  return new SseBody(start, () => {
    if (!closed) cleanup();
    closed = true;
  });
}

/**
 * `body` as a web stream, for a reader in-process (a test): its sink is full while the reader
 * has not taken the last chunk, as a socket is while its client does not read.
 */
export function readable(body: SseBody): ReadableStream<Uint8Array> {
  let resume: (() => void) | null = null;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      let done = false;
      body.start({
        write(bytes) {
          if (done) return false;
          controller.enqueue(bytes);
          return (controller.desiredSize ?? 0) > 0;
        },
        onDrain(cb) {
          resume = cb;
        },
        end() {
          if (done) return;
          done = true;
          controller.close();
        },
        destroy() {
          if (done) return;
          done = true;
          controller.error(new Error('the event stream failed'));
        },
      });
    },
    pull() {
      const cb = resume;
      resume = null;
      cb?.();
    },
    cancel() {
      body.cancel();
    },
  });
}

/**
 * The streams to wake once the code that woke them is done: the commits one flush made durable
 * (`store/group-commit.ts` tells them all in one callback) then go out together, one read of the
 * log and one write per stream, however many there were. A microtask, not the loop's next
 * check phase: under load the other I/O callbacks of the same turn (every request that came in
 * meanwhile) ran first, holding the events back by their whole run (p99 about 11 ms with 8
 * active nodes on 2 cores).
 */
const woken = new Set<() => void>();

function onNextTurn(resume: () => void): void {
  if (woken.size === 0) queueMicrotask(wakeAll);
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

const encoder = new TextEncoder();

function frames(page: readonly (EventRow | MadeEvent)[]): Uint8Array {
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
