import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { writeReply } from '../src/http/reply.ts';

// A stream answer whose source records what the writer did with it.
let cancelled: Promise<void>;
const server = createServer((_req, res) => {
  let onCancel = () => {};
  cancelled = new Promise((resolve) => {
    onCancel = resolve;
  });
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode('data: first\n\n'));
    },
    cancel: () => onCancel(),
  });
  void writeReply(res, { status: 200, body, headers: { 'Content-Type': 'text/event-stream' } }, {});
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('writeReply with a stream', () => {
  it('sends the status and the first chunk at once, and cancels the source when the client leaves', async () => {
    const { port } = server.address() as AddressInfo;
    const first = await new Promise<string>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: '/' }, (res) => {
        expect(res.statusCode).toBe(200);
        res.once('data', (chunk: Buffer) => {
          resolve(chunk.toString());
          req.destroy(); // the client leaves while the stream is still open
        });
      });
      req.on('error', () => {});
      req.end();
      setTimeout(() => reject(new Error('no first chunk')), 5_000).unref();
    });
    expect(first).toBe('data: first\n\n');
    await expect(
      Promise.race([
        cancelled.then(() => 'cancelled'),
        new Promise((resolve) => setTimeout(() => resolve('still open'), 2_000)),
      ]),
    ).resolves.toBe('cancelled');
  });
});
