import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createLocalClient } from '@svc/client/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDaemon } from '../src/index.ts';
import { json, socketFetch, tempHome } from './helpers.ts';
import { type NodesDaemon, ONE_IDLE_SLOT, SCRIPTED, startNodesDaemon } from './nodes-fixture.ts';
import { eventBacklog, readFrames, seqs } from './sse.ts';

let t: NodesDaemon;
beforeAll(async () => {
  t = await startNodesDaemon();
});
afterAll(() => t.stop());

const kinds = (frames: { event?: string }[]) =>
  frames.filter((f) => f.event !== undefined).map((f) => f.event);

describe('nodes.stream', () => {
  it('streams the backlog then live events of one node only', async () => {
    const node = await t.createNode({ task: 'watched' });
    const other = await t.createNode({ task: 'not watched' });
    const res = await t.call(`/v1/nodes/${node.id}/stream`);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    expect(Number(res.headers.get('svc-keepalive-ms'))).toBeGreaterThan(0);
    const reading = readFrames(res, (f) => kinds(f).length >= 4);
    await t.post(`/v1/nodes/${other.id}/messages`, { text: 'elsewhere' });
    await t.post(`/v1/nodes/${node.id}/messages`, { text: 'hello' });
    await t.post(`/v1/nodes/${node.id}/cancel`);
    const { frames } = await reading;
    expect(kinds(frames)).toEqual(['node.state', 'node.mail', 'node.state', 'node.outcome']);
    const data = frames.filter((f) => f.data).map((f) => JSON.parse(f.data!));
    expect(data.every((e) => e.subject_id === node.id)).toBe(true);
    expect(data[1].payload.mail.text).toBe('hello');
    expect(data.map((e) => e.seq)).toEqual(seqs(frames));
  });

  it('resumes after Last-Event-ID (over ?after=) with every later event exactly once', async () => {
    const node = await t.createNode({ task: 'resume' });
    for (let i = 0; i < 5; i++) await t.post(`/v1/nodes/${node.id}/messages`, { text: `m${i}` });
    const all = seqs(
      (await readFrames(await t.call(`/v1/nodes/${node.id}/stream`), (f) => seqs(f).length >= 6))
        .frames,
    );
    expect(all).toHaveLength(6);
    const resumed = await readFrames(
      await t.call(`/v1/nodes/${node.id}/stream?after=0`, {
        headers: { 'last-event-id': String(all[2]) },
      }),
      (f) => seqs(f).length >= 3,
      1_000,
    );
    expect(seqs(resumed.frames)).toEqual(all.slice(3));
    const page = (await t.get(`/v1/nodes/${node.id}/events?after=${all[3]}&limit=1`)).body;
    expect(page).toMatchObject({ has_more: true, next_cursor: String(all[4]) });
    expect(page.data.map((e: { seq: number }) => e.seq)).toEqual([all[4]]);
  });

  it('subtree=true includes children spawned while the stream is open; kinds filters', async () => {
    const root = await t.createNode({ task: 'root' });
    const res = await t.call(`/v1/nodes/${root.id}/stream?subtree=true&kinds=node.state`);
    const reading = readFrames(res, (f) => kinds(f).length >= 3);
    const child = await t.createNode({ task: 'child' }, t.nodeToken(root.id));
    await t.post(`/v1/nodes/${child.id}/messages`, { text: 'not a state event' });
    await t.post(`/v1/nodes/${child.id}/cancel`);
    const { frames } = await reading;
    const subjects = frames.filter((f) => f.data).map((f) => JSON.parse(f.data!).subject_id);
    expect(kinds(frames)).toEqual(['node.state', 'node.state', 'node.state']);
    expect(subjects).toEqual([root.id, child.id, child.id]);
  });

  it('ends once its node is final and its events are sent; a reconnect with nothing left is 204', async () => {
    const node = await t.createNode({ task: 'ends' });
    await t.post(`/v1/nodes/${node.id}/cancel`);
    const { frames, ended } = await readFrames(
      await t.call(`/v1/nodes/${node.id}/stream`),
      () => false,
    );
    expect(ended).toBe(true);
    expect(kinds(frames).at(-1)).toBe('node.outcome');
    const last = String(seqs(frames).at(-1));
    const again = await t.call(`/v1/nodes/${node.id}/stream`, {
      headers: { 'last-event-id': last },
    });
    expect(again.status).toBe(204);
    expect(again.headers.get('svc-request-id')).not.toBeNull();
    // follow=false is unchanged: the backlog, then the end, never 204.
    const backlog = await t.call(`/v1/nodes/${node.id}/stream?follow=false&after=${last}`);
    expect(backlog.status).toBe(200);
  });

  it('a subtree stream of a done root stays open while a node below it works, then is 204', async () => {
    const root = await t.createNode({ task: 'done root' });
    const child = await t.createNode({ task: 'still working', parent_id: root.id });
    const grandchild = await t.createNode({ task: 'deeper', parent_id: child.id });
    t.broker(root.id, 'start');
    expect((await t.post(`/v1/nodes/${root.id}/result`, { summary: 'ok' })).status).toBe(200);
    const caughtUp = async () => {
      const last = (await eventBacklog(t.call)).at(-1)!.seq;
      return t.call(`/v1/nodes/${root.id}/stream?subtree=true`, {
        headers: { 'last-event-id': String(last) },
      });
    };
    // The root is final, a node two levels below is not: more may come.
    expect((await t.get(`/v1/nodes/${grandchild.id}`)).body.state).toBe('queued');
    const open = await caughtUp();
    expect(open.status).toBe(200);
    await open.body?.cancel();
    expect((await t.post(`/v1/nodes/${child.id}/cancel`, {})).status).toBe(200);
    expect((await t.get(`/v1/nodes/${grandchild.id}`)).body.state).toBe('cancelled');
    expect((await caughtUp()).status).toBe(204);
  });

  it("the client's loops over nodes.stream and runs.stream finish with the outcome", async () => {
    const client = createLocalClient({ home: t.home });
    const live = await t.createNode({ task: 'finishes while watched' });
    const seen: string[] = [];
    const watching = (async () => {
      for await (const event of client.nodes.stream(live.id)) seen.push(event.kind);
    })();
    await t.post(`/v1/nodes/${live.id}/messages`, { text: 'on the way' });
    await t.post(`/v1/nodes/${live.id}/cancel`);
    await watching;
    expect(seen).toEqual(['node.state', 'node.mail', 'node.state', 'node.outcome']);

    const run = (await t.post('/v1/runs', { task: 'a run', model: SCRIPTED })).body;
    const child = await t.createNode({ task: 'child', parent_id: run.node_id });
    await t.post(`/v1/runs/${run.id}/cancel`);
    const kindsOfRun: string[] = [];
    for await (const event of client.runs.stream(run.id)) kindsOfRun.push(event.kind);
    expect(kindsOfRun).toContain('run.outcome');
    expect((await t.get(`/v1/nodes/${child.id}`)).body.state).toBe('cancelled');
  });

  it('a bad Last-Event-ID is 400, an unknown node 404', async () => {
    const node = await t.createNode({ task: 'x' });
    const bad = await t.call(`/v1/nodes/${node.id}/stream`, { headers: { 'last-event-id': 'x' } });
    expect(bad.status).toBe(400);
    const missing = await t.call('/v1/nodes/nd_01ARZ3NDEKTSV4RRFFQ69G5FAV/stream');
    expect(missing.status).toBe(404);
  });
});

describe('streams across a daemon restart', () => {
  it('a run stream resumed after a restart delivers every later event once, in order', async () => {
    const home = tempHome();
    try {
      const first = await startDaemon({ home, logLevel: 'warn', brokers: ONE_IDLE_SLOT });
      const owner = readFileSync(join(home, 'owner.token'), 'utf8').trim();
      let call = socketFetch(first.socketPath, owner);
      await call('/v1/nodes', json({ task: 'holds the only broker slot', model: SCRIPTED }));
      const run = (await (
        await call('/v1/runs', json({ task: 'survive', model: SCRIPTED }))
      ).json()) as {
        id: string;
        node_id: string;
      };
      await call(`/v1/runs/${run.id}/messages`, json({ text: 'before' }));
      const before = await readFrames(
        await call(`/v1/runs/${run.id}/stream`),
        (f) => seqs(f).length >= 3,
      );
      expect(kinds(before.frames)).toEqual(['node.state', 'run.started', 'node.mail']);
      const last = seqs(before.frames).at(-1)!;
      await first.close();

      const second = await startDaemon({ home, logLevel: 'warn', brokers: ONE_IDLE_SLOT });
      call = socketFetch(second.socketPath, owner);
      try {
        const reading = readFrames(
          await call(`/v1/runs/${run.id}/stream`, { headers: { 'last-event-id': String(last) } }),
          (f) => seqs(f).length >= 5,
        );
        await call(`/v1/runs/${run.id}/messages`, json({ text: 'after' }));
        await call(`/v1/runs/${run.id}/cancel`, json({}));
        const { frames } = await reading;
        expect(kinds(frames)).toEqual([
          'node.mail',
          'node.state',
          'run.state',
          'node.outcome',
          'run.outcome',
        ]);
        const got = seqs(frames);
        expect(got[0]).toBeGreaterThan(last);
        expect([...got].sort((a, b) => a - b)).toEqual(got);
        expect(new Set(got).size).toBe(got.length);
        const page = (await (await call(`/v1/runs/${run.id}/events?after=0&limit=200`)).json()) as {
          data: { seq: number }[];
        };
        const expected = [...seqs(before.frames), ...got];
        expect(page.data.map((e) => e.seq).slice(0, expected.length)).toEqual(expected);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
