/**
 * Replaying a backlog to many streams at once takes turns with the rest of the daemon
 * (`src/http/replay-turns.ts`). The readers here take every chunk as soon as it is offered, as a
 * socket with room in its buffer does, so without turns the whole replay would run to its end
 * without the event loop turning once: a `GET /v1/status` would wait for all of it.
 */
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { eventLog } from '../src/events/log.ts';
import { eventStream, readable, sseRegistry } from '../src/http/sse.ts';
import { openStore } from '../src/store/index.ts';
import { tempHome } from './helpers.ts';

const home = tempHome('svcr-');
afterAll(() => rmSync(home, { recursive: true, force: true }));

const READERS = 200;
const BACKLOG = 1_500;

describe('a backlog replayed to many streams', () => {
  it('gives the event loop turns while it runs, and every stream still gets every event', async () => {
    const store = openStore(`${home}/svc.db`);
    store.db.transaction(() => {
      for (let i = 0; i < BACKLOG; i++) {
        store.events.insert(
          'node.tool',
          'node_r',
          { turn_index: i, output: 'x'.repeat(200) },
          'now',
        );
      }
    });
    // Written past the log, so the log is opened once they are durable, as at a daemon's start.
    await store.db.durable();
    const log = eventLog(store);
    const controller = new AbortController();
    const streams = Array.from({ length: READERS }, () =>
      eventStream(log, sseRegistry(), {
        after: 0,
        kinds: undefined,
        keepaliveMs: 60_000,
        signal: controller.signal,
        follow: false,
      }),
    );
    // Counts the event loop's turns (each runs after the I/O a request would wait on).
    let turns = 0;
    let reading = true;
    const tick = () => {
      if (!reading) return;
      turns++;
      setImmediate(tick);
    };
    setImmediate(tick);
    const decoder = new TextDecoder();
    const counts = await Promise.all(
      streams.map(async (stream) => {
        const reader = readable(stream).getReader();
        let events = 0;
        for (let next = await reader.read(); !next.done; next = await reader.read()) {
          events += decoder.decode(next.value).split('\nevent: ').length - 1;
        }
        return events;
      }),
    );
    reading = false;
    controller.abort();
    store.db.close();
    expect(counts).toEqual(Array.from({ length: READERS }, () => BACKLOG));
    expect(turns).toBeGreaterThan(5);
  });
});
