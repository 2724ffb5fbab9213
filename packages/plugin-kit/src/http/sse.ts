/**
 * A streaming command's answer as Server-Sent Events (WHATWG HTML §9.2): one `data:` line of JSON
 * per item, then `event: done`; a throw mid-stream sends `event: error` with the error envelope
 * and ends the stream, since the 200 status is already on the wire.
 */
import { errorEnvelope, type PluginError } from '../errors.ts';
import { REQUEST_ID_HEADER } from './request-id.ts';

export function sseResponse(
  items: AsyncIterable<unknown>,
  requestId: string,
  abort: AbortController,
  onError: (thrown: unknown) => PluginError,
): Response {
  const encoder = new TextEncoder();
  const iterator = items[Symbol.asyncIterator]();
  const frame = (text: string) => encoder.encode(text);
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await iterator.next();
        if (next.done) {
          controller.enqueue(frame('event: done\ndata: {}\n\n'));
          controller.close();
          return;
        }
        // JSON.stringify escapes newlines, so one item is always one `data:` line.
        controller.enqueue(frame(`data: ${JSON.stringify(next.value) ?? 'null'}\n\n`));
      } catch (thrown) {
        const envelope = errorEnvelope(onError(thrown), requestId);
        controller.enqueue(frame(`event: error\ndata: ${JSON.stringify(envelope)}\n\n`));
        controller.close();
      }
    },
    async cancel() {
      // The client went away: tell the handler, and let its generator run `finally` blocks.
      abort.abort();
      await iterator.return?.().catch(() => {});
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
