/**
 * Many watchers of the log cost about one: the streams a commit wakes share one read of the
 * table and one encoding of the page, the commits one flush made durable go out in one write per
 * stream, before the loop runs anything else, and a stream that has sent everything reads
 * nothing until the next commit.
 */
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { eventLog } from '../src/events/log.ts';
import { eventStream, readable, sseRegistry } from '../src/http/sse.ts';
import { openStore, type Store } from '../src/store/index.ts';
import { tempHome } from './helpers.ts';

const WATCHERS = 50;
const stores: Store[] = [];
const homes: string[] = [];
afterAll(() => {
  for (const s of stores) s.db.close();
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

/** A store whose event reads are counted, its log, and `WATCHERS` streams of it from seq 0. */
function watched() {
  const home = tempHome();
  homes.push(home);
  const store = openStore(`${home}/svc.db`);
  stores.push(store);
  const reads = { count: 0 };
  const list = store.events.list;
  store.events.list = (query) => {
    reads.count++;
    return list(query);
  };
  const log = eventLog(store);
  const abort = new AbortController();
  const readers = Array.from({ length: WATCHERS }, () =>
    readable(
      eventStream(log, sseRegistry(), {
        after: 0,
        kinds: undefined,
        keepaliveMs: 60_000,
        signal: abort.signal,
      }),
    ).getReader(),
  );
  return { log, reads, readers, close: () => abort.abort() };
}

/** The next chunk of each reader. */
async function nextChunks(readers: ReadableStreamDefaultReader<Uint8Array>[]) {
  return Promise.all(readers.map(async (r) => (await r.read()).value!));
}

const text = (chunk: Uint8Array) => new TextDecoder().decode(chunk);

describe('event streams to many watchers', () => {
  it('share one read and one encoding per commit', async () => {
    const { log, reads, readers, close } = watched();
    const opened = await nextChunks(readers);
    expect(opened.map(text)).toEqual(Array(WATCHERS).fill(': open\n\n'));
    reads.count = 0;
    log.record('test.one', null, { n: 1 });
    const chunks = await nextChunks(readers);
    expect(text(chunks[0]!)).toMatch(/^id: 1\nevent: test\.one\ndata: .*"n":1/);
    // The very same bytes for every stream: framed and encoded once.
    expect(new Set(chunks).size).toBe(1);
    // Without sharing: one read per stream for the event, another to find nothing more.
    expect(reads.count).toBeLessThanOrEqual(2);
    close();
  });

  it('send the commits of one turn in one write, and read nothing while nothing is new', async () => {
    const { log, reads, readers, close } = watched();
    await nextChunks(readers);
    log.record('test.a', null, {});
    log.record('test.b', null, {});
    log.record('test.c', null, {});
    const chunks = await nextChunks(readers);
    for (const chunk of chunks) {
      expect([...text(chunk).matchAll(/^event: (\S+)$/gm)].map((m) => m[1])).toEqual([
        'test.a',
        'test.b',
        'test.c',
      ]);
    }
    reads.count = 0;
    // Every stream has sent all there is: a turn later, none has read the table again.
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(reads.count).toBe(0);
    log.record('test.d', null, {});
    expect((await nextChunks(readers)).map((c) => /event: (\S+)/.exec(text(c))?.[1])).toEqual(
      Array(WATCHERS).fill('test.d'),
    );
    close();
  });

  it('write the events a flush made durable before the loop runs anything else', async () => {
    const { log, readers, close } = watched();
    await nextChunks(readers);
    const store = stores.at(-1)!;
    const sent: string[] = [];
    const sink = {
      write: (bytes: Uint8Array) => sent.push(text(bytes)) > 0,
      onDrain: () => {},
      end: () => {},
      destroy: () => {},
    };
    const abort = new AbortController();
    eventStream(log, sseRegistry(), {
      after: log.lastSeq(),
      kinds: undefined,
      keepaliveMs: 60_000,
      signal: abort.signal,
    }).start(sink);
    // What else the loop has to do once the flush is in: queued by the flush's first callback,
    // so ahead of anything the streams' wake-up could put on the loop after it.
    let writtenBeforeNext: boolean | undefined;
    store.db.transaction((afterCommit) => {
      afterCommit(() =>
        setImmediate(() => {
          writtenBeforeNext = sent.some((chunk) => chunk.includes('event: test.first'));
        }),
      );
      log.record('test.first', null, {});
    });
    await nextChunks(readers);
    await new Promise((resolve) => setImmediate(resolve));
    expect(writtenBeforeNext).toBe(true);
    abort.abort();
    close();
  });

  it("share any read of the log (a node's or a run's) until the next append or turn", async () => {
    const { log, close } = watched();
    let reads = 0;
    const read = () => {
      reads++;
      return log.rows(0, 10);
    };
    const first = log.shared('node nd_1', read);
    expect(log.shared('node nd_1', read)).toBe(first);
    expect(reads).toBe(1);
    log.shared('node nd_2', read);
    expect(reads).toBe(2);
    log.record('test.new', null, {});
    await stores.at(-1)!.db.durable(); // its rows are shown once durable (group commit)
    expect(log.shared('node nd_1', read).map((r) => r.kind)).toEqual(['test.new']);
    expect(reads).toBe(3);
    await new Promise((resolve) => setImmediate(resolve));
    log.shared('node nd_1', read);
    expect(reads).toBe(4);
    close();
  });

  it('never share a page read inside a transaction that rolls back', async () => {
    const { log, readers, close } = watched();
    await nextChunks(readers);
    const store = stores.at(-1)!;
    expect(() =>
      store.db.transaction(() => {
        log.record('test.gone', null, {});
        // Not durable, so not shown, not even inside its own transaction (group commit).
        expect(log.rows(0, 10)).toEqual([]);
        throw new Error('roll back');
      }),
    ).toThrow('roll back');
    expect(log.rows(0, 10)).toEqual([]);
    log.record('test.kept', null, {});
    const chunks = await nextChunks(readers);
    expect(chunks.map((c) => /event: (\S+)/.exec(text(c))?.[1])).toEqual(
      Array(WATCHERS).fill('test.kept'),
    );
    close();
  });
});
