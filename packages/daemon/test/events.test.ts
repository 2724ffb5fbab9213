import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envelope, startTestDaemon, type TestDaemon } from './helpers.ts';
import { readFrames, seqs } from './sse.ts';

let t: TestDaemon;
beforeAll(async () => {
  t = await startTestDaemon({ sseKeepaliveMs: 100 });
});
afterAll(() => t.stop());

const consecutive = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('GET /v1/events', () => {
  it('streams id = seq, event = kind, data = the event', async () => {
    const res = await t.call('/v1/events?after=0');
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    // The keepalive interval, so a client can tell a quiet stream from a dead one.
    expect(res.headers.get('svc-keepalive-ms')).toBe('100');
    const { frames } = await readFrames(res, (f) => f.some((x) => x.event === 'daemon.started'));
    const started = frames.find((f) => f.event === 'daemon.started')!;
    const data = JSON.parse(started.data!) as Record<string, unknown>;
    expect(data).toMatchObject({
      seq: Number(started.id),
      kind: 'daemon.started',
      subject_id: null,
    });
    expect(data.payload).toMatchObject({ pid: process.pid });
  });

  it('backlog flows into live events with no gap and no duplicate', async () => {
    await t.appToken([]);
    const res = await t.call('/v1/events?after=0');
    const minting = (async () => {
      for (let i = 0; i < 30; i++) await t.appToken([]);
    })();
    const expected = async () => {
      await minting;
      const last = (await (await t.call('/v1/tokens?limit=200')).json()) as { data: unknown[] };
      return last.data.length;
    };
    const { frames } = await readFrames(
      res,
      (f) => f.filter((x) => x.event === 'token.created').length >= 32,
      10_000,
    );
    await minting;
    const got = seqs(frames);
    expect(got).toEqual(consecutive(1, got.at(-1)!));
    expect(frames.filter((f) => f.event === 'token.created')).toHaveLength(await expected());
  });

  it('resumes after ?after= and Last-Event-ID (the header wins)', async () => {
    const all = seqs(
      (await readFrames(await t.call('/v1/events'), (f) => seqs(f).length >= 5)).frames,
    );
    const byQuery = await readFrames(
      await t.call('/v1/events?after=3'),
      (f) => seqs(f).length >= 2,
    );
    expect(seqs(byQuery.frames).slice(0, 2)).toEqual([4, 5]);
    const byHeader = await readFrames(
      await t.call('/v1/events?after=1', { headers: { 'last-event-id': '2' } }),
      (f) => seqs(f).length >= 2,
    );
    expect(seqs(byHeader.frames).slice(0, 2)).toEqual([3, 4]);
    expect(all.slice(0, 5)).toEqual([1, 2, 3, 4, 5]);
  });

  it('filters by ?kinds=', async () => {
    const { frames } = await readFrames(
      await t.call('/v1/events?kinds=daemon.started,listener.tcp'),
      (f) => seqs(f).length >= 1,
      500,
    );
    expect(
      frames
        .filter((f) => f.id !== undefined)
        .every((f) => f.event === 'daemon.started' || f.event === 'listener.tcp'),
    ).toBe(true);
    expect(seqs(frames).length).toBeGreaterThan(0);
  });

  it('sends keepalive comments', async () => {
    const { frames } = await readFrames(
      await t.call('/v1/events?after=999999999999999'),
      (f) => f.some((x) => x.comment === 'keepalive'),
      2_000,
    );
    expect(frames.some((f) => f.comment === 'keepalive')).toBe(true);
  });

  it('refuses a bad Last-Event-ID', async () => {
    const res = await t.call('/v1/events', { headers: { 'last-event-id': 'abc' } });
    expect(res.status).toBe(400);
    expect(await envelope(res)).toMatchObject({ code: 'invalid_request', field: 'Last-Event-ID' });
  });

  it('refuses a bad ?after= naming it, and takes any seq up to 2^53-1', async () => {
    for (const after of ['-1', 'abc', '1.5', '9007199254740992', '12345678901234567']) {
      const res = await t.call(`/v1/events?follow=false&after=${after}`);
      expect(`${after} ${res.status}`).toBe(`${after} 422`);
      expect(await envelope(res)).toMatchObject({ code: 'validation_failed', field: 'after' });
    }
    const res = await t.call('/v1/events?follow=false&after=9007199254740991');
    expect(res.status).toBe(200);
    await res.body?.cancel();
  });

  it('ends open streams cleanly on shutdown', async () => {
    const other = await startTestDaemon();
    const res = await other.call('/v1/events');
    const reading = readFrames(res, () => false, 5_000);
    await new Promise((r) => setTimeout(r, 100));
    const started = Date.now();
    await other.stop();
    const { ended, frames } = await reading;
    expect(ended).toBe(true);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(frames.some((f) => f.event === 'daemon.stopping')).toBe(true);
  });
});
