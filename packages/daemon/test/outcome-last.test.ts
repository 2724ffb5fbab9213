/**
 * The outcome is a node's last event (docs/nodes.md "Events"), so a stream that ends once its node
 * is settled misses nothing. Real brokers record the submit call's own result, the calls after it
 * (not run) and what a cancel cut short; whenever they record it, nothing lands after the outcome,
 * checked on the node's whole log once its broker is gone, not on timing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bash,
  createNode,
  type EventDto,
  eventually,
  nodeEvents,
  scripted,
  submit,
  waitForNode,
} from './broker-fixtures.ts';
import { json, startTestDaemon, type TestDaemon } from './helpers.ts';
import { readFrames } from './sse.ts';

let t: TestDaemon;
beforeAll(async () => {
  t = await startTestDaemon({ brokers: { concurrency: 2 } });
});
afterAll(async () => {
  await t?.stop();
});

/** No broker holds a node any more: every record a broker makes is in. */
async function brokersGone(): Promise<void> {
  await eventually(
    async () => {
      const status = (await (await t.call('/v1/status')).json()) as {
        brokers: { active: number };
      };
      return status.brokers.active === 0;
    },
    10_000,
    'every broker exited',
  );
}

/** The node's stream from its first event until it ends by itself: the seqs and kinds it sent. */
async function streamToEnd(id: string): Promise<{ seq: number; kind: string }[]> {
  const { frames, ended } = await readFrames(
    await t.call(`/v1/nodes/${id}/stream`),
    () => false,
    15_000,
  );
  expect(ended).toBe(true);
  return frames
    .filter((f) => f.id !== undefined)
    .map((f) => ({ seq: Number(f.id), kind: f.event ?? '' }));
}

const tools = (events: EventDto[]) =>
  events
    .filter((e) => e.kind === 'node.tool')
    .map((e) => e.payload.tool_call as { name: string; status: string; output: unknown });

describe("the outcome is the node's last event", () => {
  it('a submit call: its own result and the calls after it come before the outcome', async () => {
    const node = await createNode(t.call, {
      task: 'submit, with a call after it',
      model: scripted('submit-then-more', [
        {
          tool_calls: [
            { name: 'submit', input: { result: { ok: true } } },
            { name: 'bash', input: { command: 'echo never' } },
          ],
        },
      ]),
    });
    const streamed = await streamToEnd(node.id);
    await brokersGone();
    const log = await nodeEvents(t.call, node.id);
    expect(log.at(-1)?.kind).toBe('node.outcome');
    // The stream ended on its own and still sent every event the node has.
    expect(streamed).toEqual(log.map(({ seq, kind }) => ({ seq, kind })));
    expect(tools(log)).toEqual([
      expect.objectContaining({ name: 'submit', status: 'ok', output: { submitted: true } }),
      expect.objectContaining({
        name: 'bash',
        status: 'error',
        output: 'not run: the node submitted its result',
      }),
    ]);
  });

  it('a submit the daemon refuses records nothing of it: the model reads the error', async () => {
    const node = await createNode(t.call, {
      task: 'submit a wrong result, then a right one',
      output_schema: { type: 'object', required: ['n'], properties: { n: { type: 'number' } } },
      model: scripted('refused', [submit({ wrong: 1 }), submit({ n: 1 })]),
    });
    const streamed = await streamToEnd(node.id);
    await brokersGone();
    const log = await nodeEvents(t.call, node.id);
    expect(log.at(-1)?.kind).toBe('node.outcome');
    expect(streamed.map((e) => e.seq)).toEqual(log.map((e) => e.seq));
    expect(tools(log).map((c) => c.status)).toEqual(['error', 'ok']);
  });

  it('a cancel while a command runs: the cut-short call and its job come before the outcome', async () => {
    const node = await createNode(t.call, {
      task: 'be cancelled mid-command',
      model: scripted('cancelled', [bash('sleep 30'), submit({ ok: true })]),
    });
    const streaming = streamToEnd(node.id);
    await eventually(
      async () =>
        (await nodeEvents(t.call, node.id, ['node.job'])).some(
          (e) => (e.payload.job as { state: string }).state === 'running',
        ),
      10_000,
      'the command running as a job',
    );
    expect((await t.call(`/v1/nodes/${node.id}/cancel`, json({}))).status).toBe(200);
    const streamed = await streaming;
    await brokersGone();
    const log = await nodeEvents(t.call, node.id);
    expect(log.at(-1)?.kind).toBe('node.outcome');
    expect(streamed.map((e) => e.seq)).toEqual(log.map((e) => e.seq));
    expect(tools(log)).toEqual([
      expect.objectContaining({ name: 'bash', status: 'error', output: expect.any(String) }),
    ]);
    const jobs = log.filter((e) => e.kind === 'node.job').map((e) => e.payload.job);
    expect(jobs.at(-1)).toMatchObject({ state: 'cancelled' });
    expect((await waitForNode(t.call, node.id, () => true)).state).toBe('cancelled');
  });
});
