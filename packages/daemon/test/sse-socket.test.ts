/**
 * An event stream's answer on a real socket (`src/http/sse-socket.ts`): its chunks are framed as
 * the chunked transfer coding says, written straight to the socket; a client that does not read
 * holds the stream at its socket's buffer (the daemon reads no more of the log, so its memory
 * does not grow with the backlog); and a client without chunked coding (HTTP/1.0) is answered
 * through node's own writes.
 */
import { rmSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { eventLog } from '../src/events/log.ts';
import { writeReply } from '../src/http/reply.ts';
import { eventStream, sseHeaders, sseRegistry } from '../src/http/sse.ts';
import { openStore } from '../src/store/index.ts';
import { tempHome } from './helpers.ts';

const home = tempHome('svcs-');
const store = openStore(`${home}/svc.db`);
const log = eventLog(store);
const aborts: AbortController[] = [];
// The log's reads by the streams (the last seq each asked after), and the answers being written.
const readsAfter: number[] = [];
const answers: ServerResponse[] = [];
let follow = true;

const server = createServer((req, res) => {
  const abort = new AbortController();
  aborts.push(abort);
  answers.push(res);
  req.once('close', () => abort.abort());
  const body = eventStream(log, sseRegistry(), {
    after: 0,
    kinds: undefined,
    keepaliveMs: 60_000,
    signal: abort.signal,
    follow,
    read: (after, limit) => {
      readsAfter.push(after);
      return log.rows(after, limit);
    },
  });
  void writeReply(res, { status: 200, body, headers: sseHeaders(60_000) }, {});
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const { port } = server.address() as AddressInfo;

afterAll(async () => {
  for (const abort of aborts) abort.abort();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  store.db.close();
  rmSync(home, { recursive: true, force: true });
});

/** A raw connection that sent `GET /` in `version`; `text()` is all it has read so far. */
function rawGet(version: '1.0' | '1.1') {
  const socket = connect(port, '127.0.0.1');
  socket.write(`GET / HTTP/${version}\r\nHost: 127.0.0.1\r\n\r\n`);
  let read = '';
  socket.on('data', (chunk: Buffer) => {
    read += chunk.toString('latin1');
  });
  // `tail`: the last bytes only, for a check on every read of a long answer.
  return { socket, text: () => read, tail: () => read.slice(-16_384) };
}

/** Until `ok()` holds, on every read of the socket; bounded by the socket's end. */
function until(socket: Socket, ok: () => boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (!ok()) return;
      socket.off('data', check);
      socket.off('close', gone);
      resolve();
    };
    const gone = () => (ok() ? resolve() : reject(new Error('the connection ended first')));
    socket.on('data', check);
    socket.once('close', gone);
    check();
  });
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('an event stream on its socket', () => {
  it('frames each page as one chunk of the chunked coding, and ends with the last chunk', async () => {
    follow = false;
    const first = log.record('test.framed', null, { n: 1 });
    await store.db.durable();
    const { socket, text } = rawGet('1.1');
    await until(socket, () => text().endsWith('0\r\n\r\n'));
    const body = text().slice(text().indexOf('\r\n\r\n') + 4);
    expect(text()).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(text()).toMatch(/\r\nTransfer-Encoding: chunked\r\n/i);
    // Each chunk: its size in hex, CRLF, exactly that many bytes, CRLF.
    const chunks: string[] = [];
    let rest = body;
    for (let i = 0; i < 10 && rest.length > 0; i++) {
      const eol = rest.indexOf('\r\n');
      const size = Number.parseInt(rest.slice(0, eol), 16);
      chunks.push(rest.slice(eol + 2, eol + 2 + size));
      expect(rest.slice(eol + 2 + size, eol + 4 + size)).toBe('\r\n');
      rest = rest.slice(eol + 4 + size);
    }
    expect(chunks[0]).toBe(': open\n\n');
    expect(chunks.at(-1)).toBe('');
    expect(chunks.slice(1, -1).join('')).toMatch(
      new RegExp(`^id: ${first.seq}\nevent: test\\.framed\ndata: \\{"seq":${first.seq},`),
    );
    socket.destroy();
    follow = true;
  });

  it('answers a client without chunked coding (HTTP/1.0) through node, till the connection ends', async () => {
    follow = false;
    const last = log.record('test.plain', null, { n: 2 });
    await store.db.durable();
    const { socket, text } = rawGet('1.0');
    await until(socket, () => socket.readableEnded || socket.destroyed);
    await until(socket, () => text().includes(`id: ${last.seq}\nevent: test.plain`));
    const body = text().slice(text().indexOf('\r\n\r\n') + 4);
    expect(text()).not.toMatch(/Transfer-Encoding/i);
    expect(body.startsWith(': open\n\n')).toBe(true);
    socket.destroy();
    follow = true;
  });

  it('reads no more of the log while its client does not read, and sends it all once it does', async () => {
    // About 20 MB of events: more than the kernel's buffers of both ends of the connection hold.
    const before = log.lastSeq();
    const count = 5_000;
    store.db.transaction(() => {
      for (let i = 0; i < count; i++) log.record('test.big', null, { i, pad: 'x'.repeat(4_000) });
    });
    await store.db.durable();
    const answered = answers.length;
    const { socket, text, tail } = rawGet('1.1');
    socket.pause(); // a client that reads nothing
    readsAfter.length = 0;
    // Until the daemon's side of the connection is full and the stream waits for its drain.
    for (let i = 0; i < 100_000 && answers.length === answered; i++) await turn();
    const res = answers.at(-1)!;
    for (let i = 0; i < 100_000 && !(res.socket?.writableNeedDrain ?? false); i++) await turn();
    expect(res.socket?.writableNeedDrain).toBe(true);
    const reads = readsAfter.length;
    for (let i = 0; i < 50; i++) await turn();
    // Nothing more read meanwhile, and what waits in the daemon's memory is about a page.
    expect(readsAfter.length).toBe(reads);
    expect(Math.max(...readsAfter)).toBeLessThan(before + count);
    expect(res.socket!.writableLength).toBeLessThan(2 * 1024 * 1024);
    // It reads again: everything comes, in order, once.
    socket.resume();
    const lastId = `id: ${before + count}\n`;
    await until(socket, () => tail().includes(lastId));
    const ids = [...text().matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    expect(ids.filter((id) => id > before)).toEqual(
      Array.from({ length: count }, (_, i) => before + i + 1),
    );
    socket.destroy();
  });
});
