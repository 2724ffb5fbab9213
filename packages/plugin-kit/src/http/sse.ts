/**
 * A streaming command's answer as Server-Sent Events (WHATWG HTML §9.2): one `data:` line of JSON
 * per item, then `event: done`; a throw mid-stream sends `event: error` with the error envelope
 * and ends the stream, since the 200 status is already on the wire.
 */
import { errorEnvelope, type PluginError } from '../errors.ts';
import { REQUEST_ID_HEADER } from './request-id.ts';

const encoder = new TextEncoder();

/**
 * How long the answer waits for the first item before it goes out without one. An `async
 * function*` runs nothing until its first item is asked for, so a handler that checks its input
 * first and throws (a `PluginError` 404, say) would otherwise have its status lost behind a 200
 * already sent. Within this wait such a throw is the answer's own status; past it, a stream that
 * has nothing to say yet (a watch) still gets its headers.
 */
export const FIRST_ITEM_WAIT_MS = 1_000;

/**
 * Rejects, with what the iterable threw, when it throws before its first item within
 * `FIRST_ITEM_WAIT_MS`: the caller answers that as any handler's throw.
 */
export async function sseResponse(
  items: AsyncIterable<unknown>,
  requestId: string,
  onCancel: () => void,
  onError: (thrown: unknown) => PluginError,
): Promise<Response> {
  const iterator = items[Symbol.asyncIterator]();
  let pending: Promise<IteratorResult<unknown>> | null = iterator.next();
  if (await settlesWithin(pending, FIRST_ITEM_WAIT_MS)) {
    try {
      await pending;
    } catch (thrown) {
      iterator.return?.()?.catch(() => {});
      throw thrown;
    }
  }
  // Set once the client went away. A read pending at that moment still settles later (the
  // generator sees the abort and yields or throws): its outcome has nowhere to go, and writing
  // it into the closed stream would fail as if the handler had.
  let cancelled = false;
  const finish = () => {
    iterator.return?.()?.catch(() => {});
  };
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      let frame: Uint8Array;
      let last = false;
      try {
        const next = await (pending ?? iterator.next());
        pending = null;
        if (cancelled) return;
        last = next.done === true;
        // JSON.stringify escapes newlines, so one item is always one `data:` line.
        frame = encoder.encode(
          last ? 'event: done\ndata: {}\n\n' : `data: ${JSON.stringify(next.value) ?? 'null'}\n\n`,
        );
      } catch (thrown) {
        if (cancelled) return;
        // The handler threw, or yielded what JSON cannot hold: end the stream, and the generator.
        const envelope = errorEnvelope(onError(thrown), requestId);
        frame = encoder.encode(`event: error\ndata: ${JSON.stringify(envelope)}\n\n`);
        last = true;
        finish();
      }
      controller.enqueue(frame);
      if (last) controller.close();
    },
    cancel() {
      // The client went away: tell the handler, and let its generator run `finally` blocks. Not
      // awaited: `return()` waits for a pending `next()`, which may wait on the handler.
      cancelled = true;
      onCancel();
      finish();
    },
  });
  return new Response(stream, {
    status: 200,
    headers: {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      [REQUEST_ID_HEADER]: requestId,
    },
  });
}

/** Whether `promise` settles, either way, within `ms`; the timer does not outlive it. */
function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    const settled = () => {
      clearTimeout(timer);
      resolve(true);
    };
    promise.then(settled, settled);
  });
}
