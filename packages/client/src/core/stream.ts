import { linkAbort } from '../internal/abort.ts';
import { sleep } from '../internal/sleep.ts';
import { APIConnectionError, APIError } from './errors.ts';
import { backoff, retryDelay, shouldRetry } from './retry.ts';
import { type ServerSentEvent, SSEParser } from './sse.ts';
import type { RawResponse } from './transport.ts';

export interface StreamInit<T> {
  /** Opens one connection, sending `lastEventId` (when not empty) as `Last-Event-ID`. */
  open(lastEventId: string, signal: AbortSignal): Promise<RawResponse>;
  parse(event: ServerSentEvent): T;
  /** Consecutive failed connections tolerated before the stream gives up. */
  maxRetries: number;
  /**
   * A connection silent (not even a keepalive comment) this long is treated as dropped; longer
   * when the server says it may be quiet for longer (`Svc-Keepalive-Ms`).
   */
  idleTimeout: number;
  signal: AbortSignal | undefined;
  after: string;
  /** The answer's end is the stream's end (`follow: false`), not a disconnect to recover from. */
  endsWithBody: boolean;
  /**
   * What a reconnect resumes from: `last`, the id of the last event seen (events come in id
   * order); `max`, the highest seq seen (a stream that replays older events first); `start`,
   * `after` as given, every time (a stream whose every connect replays what is still owed).
   */
  resume: Resume;
}

export type Resume = 'last' | 'max' | 'start';

/**
 * A server-sent event stream as an async iterator that survives disconnects: it reconnects with
 * `Last-Event-ID` set by its `resume` (by default the last id seen, so the server resumes right
 * after it: no event lost, none repeated). `break` out of the loop aborts the request; so does the
 * caller's `signal`, after which the loop ends without an error, as `break` does.
 */
export class Stream<T> implements AsyncIterable<T> {
  /** Where a reconnect resumes (`resume`): pass it as `after` to go on later. */
  lastEventId: string;
  readonly #init: StreamInit<T>;

  constructor(init: StreamInit<T>) {
    this.#init = init;
    this.lastEventId = init.after;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    const { open, parse, maxRetries, idleTimeout, signal, endsWithBody, resume } = this.#init;
    const stream = new AbortController();
    const unlink = linkAbort(signal, stream);
    // Only failures of the connection itself lead to a reconnect; a parse error propagates.
    // The caller's abort needs no case here: the catch below ends the loop on it.
    const disconnected = (error: unknown): never => {
      throw new Disconnected(asRetryable(error));
    };
    let failures = 0;
    let reconnectMs: number | undefined;
    try {
      for (;;) {
        const connection = new AbortController();
        const unlinkConnection = linkAbort(stream.signal, connection);
        let idle: ReturnType<typeof setTimeout> | undefined;
        let failure: APIError | undefined;
        const opened = Date.now();
        try {
          const cursor = resume === 'start' ? this.#init.after : this.lastEventId;
          const raw = await open(cursor, connection.signal).catch(disconnected);
          raw.endTimeout();
          // WHATWG HTML §9.2.3: 204 No Content tells the client to stop reconnecting.
          if (raw.response.status === 204) return;
          const parser = new SSEParser(this.lastEventId);
          const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
          const reader = raw.response.body!.getReader();
          const silence = allowedSilence(idleTimeout, raw.response.headers);
          for (;;) {
            idle = setTimeout(() => connection.abort(), silence);
            const chunk = await reader.read().catch(disconnected);
            clearTimeout(idle); // the consumer's own pace is not the connection's silence
            if (chunk.done) break;
            for (const event of parser.feed(decoder.decode(chunk.value, { stream: true }))) {
              failures = 0;
              this.lastEventId = resumeId(resume, this.lastEventId, event.id);
              yield parse(event);
            }
            if (resume === 'last') this.lastEventId = parser.lastEventId;
            reconnectMs = parser.retry ?? reconnectMs;
          }
        } catch (error) {
          if (!(error instanceof Disconnected)) throw error;
          failure = error.failure;
        } finally {
          clearTimeout(idle);
          unlinkConnection();
          connection.abort();
        }
        // Disconnected: cleanly (the server ended the body) or by `failure`.
        if (failure === undefined) {
          if (endsWithBody) return;
          // The server ended a connection that had worked a while (a daemon restarting): the
          // budget for failures in a row starts again, else a quiet stream would die after a few
          // restarts in its life. One ended at once counts, so such a server is not retried
          // without end.
          if (Date.now() - opened >= WORKED_MS) failures = 0;
        }
        if (failures >= maxRetries) {
          if (failure) throw failure;
          return;
        }
        const delay = failure?.headers
          ? retryDelay(failures, failure.headers)
          : (reconnectMs ?? backoff(failures));
        failures++;
        await sleep(delay, stream.signal);
      }
    } catch (error) {
      // The caller's own abort ends the loop, as in the Stainless SDKs: asked to stop, it stops.
      if (signal?.aborted) return;
      throw error;
    } finally {
      unlink();
      stream.abort();
    }
  }
}

/** How long a connection must have stayed open for its clean end to cost no retry. */
const WORKED_MS = 1_000;

/** The cursor after `id`: numeric seqs compared as numbers, for `max`. */
function resumeId(resume: Resume, current: string, id: string): string {
  if (resume !== 'max') return id;
  return current === '' || Number(id) > Number(current) ? id : current;
}

/**
 * How long a connection may stay silent: the client's timeout, but never less than two of the
 * server's keepalive intervals, so a short request timeout does not cut a quiet stream (SPEC:
 * stream options have no `timeout`). One interval would race the keepalive itself.
 */
function allowedSilence(idleTimeout: number, headers: Headers): number {
  const keepalive = Number(headers.get('svc-keepalive-ms'));
  return Number.isSafeInteger(keepalive) && keepalive > 0
    ? Math.max(idleTimeout, 2 * keepalive)
    : idleTimeout;
}

class Disconnected extends Error {
  readonly failure: APIError;

  constructor(failure: APIError) {
    super(failure.message);
    this.failure = failure;
  }
}

/** Returns the failure when a reconnect may cure it; throws it otherwise. */
function asRetryable(error: unknown): APIError {
  if (error instanceof APIError) {
    if (error.status === undefined || shouldRetry(error.status, error.headers!)) return error;
    throw error;
  }
  // A broken body read (reset, idle timeout) surfaces as a plain error from the reader.
  return new APIConnectionError({ message: 'The event stream was interrupted.', cause: error });
}
