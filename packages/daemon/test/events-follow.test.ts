import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envelope } from './helpers.ts';
import { type NodesDaemon, startNodesDaemon } from './nodes-fixture.ts';
import { readFrames, seqs } from './sse.ts';

let t: NodesDaemon;
beforeAll(async () => {
  t = await startNodesDaemon();
});
afterAll(() => t.stop());

const consecutive = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** The seq of the latest event, read through the backlog stream itself. */
async function lastSeq(): Promise<number> {
  const { frames } = await readFrames(await t.call('/v1/events?follow=false'), () => false);
  return seqs(frames).at(-1)!;
}

describe('?follow=false: the backlog, then the end', () => {
  it('GET /v1/events sends every event up to the request and ends the stream', async () => {
    for (let i = 0; i < 3; i++) await t.appToken([]);
    const started = Date.now();
    const { frames, ended } = await readFrames(
      await t.call('/v1/events?follow=false'),
      () => false,
    );
    expect(ended).toBe(true);
    expect(Date.now() - started).toBeLessThan(2_000);
    const got = seqs(frames);
    expect(got).toEqual(consecutive(1, got.at(-1)!));
    expect(frames.filter((f) => f.event === 'token.created').length).toBeGreaterThanOrEqual(3);
  });

  it('keeps ?after=, Last-Event-ID and ?kinds=, and ends at once when nothing is after', async () => {
    const last = await lastSeq();
    const after = await readFrames(
      await t.call(`/v1/events?follow=false&after=${last - 2}`),
      () => false,
    );
    expect(after).toMatchObject({ ended: true });
    expect(seqs(after.frames)).toEqual([last - 1, last]);
    const byHeader = await readFrames(
      await t.call('/v1/events?follow=false&after=0', {
        headers: { 'last-event-id': String(last) },
      }),
      () => false,
    );
    expect(byHeader).toEqual({ frames: [], ended: true });
    const kinds = await readFrames(
      await t.call('/v1/events?follow=false&kinds=daemon.started'),
      () => false,
    );
    expect(kinds.ended).toBe(true);
    expect(kinds.frames.map((f) => f.event)).toEqual(['daemon.started']);
  });

  it('follow=true (the default) stays open for live events', async () => {
    const last = await lastSeq();
    const res = await t.call(`/v1/events?follow=true&after=${last}`);
    const reading = readFrames(res, (f) => seqs(f).length >= 1, 5_000);
    await t.appToken([]);
    const { frames, ended } = await reading;
    expect(ended).toBe(false);
    expect(seqs(frames)).toEqual([last + 1]);
  });

  it('a node stream ends after its backlog too', async () => {
    const node = await t.createNode({ task: 'watched' });
    await t.post(`/v1/nodes/${node.id}/messages`, { text: 'hello' });
    const { frames, ended } = await readFrames(
      await t.call(`/v1/nodes/${node.id}/stream?follow=false`),
      () => false,
    );
    expect(ended).toBe(true);
    expect(frames.map((f) => f.event)).toEqual(['node.state', 'node.mail']);
  });

  it('anything but true or false is 422 naming follow', async () => {
    const res = await t.call('/v1/events?follow=no');
    expect(res.status).toBe(422);
    expect(await envelope(res)).toMatchObject({ code: 'validation_failed', field: 'follow' });
  });
});
