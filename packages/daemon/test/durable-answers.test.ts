/**
 * Group commit's promise on the real daemon: no answer and no event goes out before the flush
 * that makes its write durable. The daemon's flush is held here, so the test sees the window.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flushGate } from './flush-gate.ts';
import { json, startTestDaemon, type TestDaemon } from './helpers.ts';
import { readFrames } from './sse.ts';

/** Long enough for an answer already written to reach the client; only a pass can be false. */
const WINDOW_MS = 150;
const notWithin = <T>(promise: Promise<T>) =>
  Promise.race([
    promise.then(() => 'settled' as const),
    new Promise<'pending'>((resolve) => setTimeout(() => resolve('pending'), WINDOW_MS)),
  ]);

const gate = flushGate();
let t: TestDaemon;
beforeAll(async () => {
  t = await startTestDaemon({ flush: gate.flush });
});
afterAll(async () => {
  gate.release();
  await t.stop();
});

describe('answers after durability (group commit)', () => {
  it('a write is answered, and its event streamed, only once its flush ends', async () => {
    const last = (await (await t.call('/v1/events?follow=false')).text()).match(/id: (\d+)/g);
    const after = Number(last?.at(-1)?.slice(4) ?? 0);
    const stream = await t.call(`/v1/events?after=${after}&kinds=token.created`);
    expect(stream.status).toBe(200);

    // The stream is read all along: the event must not come before the flush is let go.
    let released = false;
    let seenReleased: boolean | null = null;
    const created = (f: { event?: string }) => f.event === 'token.created';
    const read = readFrames(stream, (frames) => {
      if (!frames.some(created)) return false;
      seenReleased = released;
      return true;
    });

    const held = gate.hold();
    const answer = t.call('/v1/connect', json({ app_id: 'durable-app', scopes: [] }));
    await held; // the connect's commit is in, its flush held
    expect(await notWithin(answer)).toBe('pending');
    // A read made meanwhile may show that commit: it waits for the flush as well.
    expect(await notWithin(t.call('/v1/status'))).toBe('pending');

    released = true;
    gate.release();
    const res = await answer;
    expect(res.status).toBe(200);
    const { token_id } = (await res.json()) as { token_id: string };
    const { frames } = await read;
    expect(seenReleased).toBe(true);
    expect(JSON.parse(frames.find(created)!.data!).subject_id).toBe(token_id);
  });

  it('with nothing unflushed, a read is answered at once', async () => {
    gate.release();
    expect((await t.call('/v1/status')).status).toBe(200);
    void gate.hold(); // no write comes: no flush is held, and the read does not wait for one
    expect((await t.call('/v1/status')).status).toBe(200);
    gate.release();
  });
});
