/**
 * A streaming command's answer as Server-Sent Events (WHATWG HTML §9.2): one `data:` line of JSON
 * per item, then `event: done`; a throw mid-stream sends `event: error` with the error envelope
 * and ends the stream, since the 200 status is already on the wire.
 */
import { errorText, type PluginError } from '../errors.ts';
import { REQUEST_ID_HEADER } from './request-id.ts';

const encoder = new TextEncoder();
const DONE = encoder.encode('event: done\ndata: {}\n\n');

/**
 * How long the answer waits for the first item before it goes out without one. An `async
 * function*` runs nothing until its first item is asked for, so a handler that checks its input
 * first and throws (a `PluginError` 404, say) would otherwise have its status lost behind a 200
 * already sent. Within this wait such a throw is the answer's own status; past it, a stream that
 * has nothing to say yet (a watch) still gets its headers.
 */
export const FIRST_ITEM_WAIT_MS = 1_000;

/**
 * Rejects, with what the iterable threw (or the error of a first item JSON cannot hold), when that
 * happens before its first item within `FIRST_ITEM_WAIT_MS`: the caller answers it as any
 * handler's throw.
 * @param signal the request's: a client gone during the wait gets nothing, and the handler is
 * told as when it stops reading a stream
 */
export async function sseResponse(
  items: AsyncIterable<unknown>,
  signal: AbortSignal,
  requestId: string,
  onCancel: () => void,
  onError: (thrown: unknown) => PluginError,
): Promise<Response> {
  const iterator = items[Symbol.asyncIterator]();
  // Set once the client went away. A read pending at that moment still settles later (the
  // generator sees the abort and yields or throws): its outcome has nowhere to go, and writing
  // it into the closed stream would fail as if the handler had.
  let cancelled = false;
  const finish = () => {
    iterator.return?.()?.catch(() => {});
  };
  const cancel = () => {
    cancelled = true;
    onCancel();
    finish();
  };
  let pending: Promise<IteratorResult<unknown>> | null = iterator.next();
  /** The first frame, when it came within the wait. */
  let first: Uint8Array | null = null;
  if (await settlesWithin(pending, FIRST_ITEM_WAIT_MS, signal)) {
    if (signal.aborted) {
      pending.catch(() => {}); // a throw the abort caused is no failure of the handler's
      cancel();
      return answer(null, requestId);
    }
    try {
      first = frame(await pending);
    } catch (thrown) {
      finish();
      throw thrown;
    }
    pending = null;
  }
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      let chunk = first;
      let last = false;
      first = null;
      if (chunk === null) {
        try {
          const next = await (pending ?? iterator.next());
          pending = null;
          if (cancelled) return;
          chunk = frame(next);
        } catch (thrown) {
          if (cancelled) return;
          // The handler threw, or yielded what JSON cannot hold: end the stream and the generator.
          const envelope = errorText(onError(thrown), requestId);
          chunk = encoder.encode(`event: error\ndata: ${envelope}\n\n`);
          last = true;
          finish();
        }
      }
      controller.enqueue(chunk);
      if (last || chunk === DONE) controller.close();
    },
    cancel() {
      // The client went away: tell the handler, and let its generator run `finally` blocks. Not
      // awaited: `return()` waits for a pending `next()`, which may wait on the handler.
      cancel();
    },
  });
  return answer(stream, requestId);
}

/** An item as its event; throws for one JSON cannot hold (a BigInt, a cycle). */
function frame(next: IteratorResult<unknown>): Uint8Array {
  if (next.done === true) return DONE;
  // JSON.stringify escapes newlines, so one item is always one `data:` line.
  return encoder.encode(`data: ${JSON.stringify(next.value) ?? 'null'}\n\n`);
}

function answer(body: ReadableStream<Uint8Array> | null, requestId: string): Response {
  return new Response(body, {
    status: 200,
    headers: {
      // The media type alone: an event stream is always UTF-8 (WHATWG HTML §9.2.5), and a
      // client testing the type for equality would refuse it with a parameter.
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-cache, no-transform',
      [REQUEST_ID_HEADER]: requestId,
    },
  });
}

/**
 * Whether `promise` settled, either way, or `signal` aborted, within `ms`; neither the timer nor
 * the listener outlives the wait.
 */
function settlesWithin(
  promise: Promise<unknown>,
  ms: number,
  signal: AbortSignal,
): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (settled: boolean) => () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      resolve(settled);
    };
    const onAbort = done(true);
    const timer = setTimeout(done(false), ms);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(done(true), done(true));
  });
}
