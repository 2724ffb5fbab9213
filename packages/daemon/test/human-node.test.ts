/**
 * `ask_human` end to end on a real broker with the scripted model: turn 1 asks, the node parks
 * `waiting` on its request, the person answers in the inbox, the answer's mail wakes the node and
 * its turn 2 (which reads that mail) submits.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createNode,
  isFinal,
  nodeEvents,
  ok,
  scripted,
  submit,
  toolCall,
  toolResults,
  waitForNode,
} from './broker-fixtures.ts';
import { json, startTestDaemon, type TestDaemon } from './helpers.ts';

let t: TestDaemon;
beforeAll(async () => {
  t = await startTestDaemon({ brokers: { concurrency: 2 } });
});
afterAll(async () => {
  await t?.stop();
});

describe('ask_human', () => {
  it('parks the node on its request; the answer wakes it and reaches its next turn', async () => {
    const node = await createNode(t.call, {
      task: 'ask before deploying',
      model: scripted('asker', [
        toolCall('ask_human', { title: 'Deploy now?', body: 'v2 is ready', kind: 'approval' }),
        submit({ deployed: true }),
      ]),
    });
    const waiting = await waitForNode(t.call, node.id, (n) => n.state === 'waiting');
    expect(waiting.waiting_on).toMatchObject({ for: 'human' });
    const requestId = (waiting.waiting_on as unknown as { request_id: string }).request_id;
    const request = await ok<{ ticket_id: string; node_id: string; options: string[] }>(
      await t.call(`/v1/human/requests/${requestId}`),
    );
    expect(request).toMatchObject({ node_id: node.id, options: ['approve', 'reject'] });

    const answered = await t.call(
      `/v1/human/inbox/${request.ticket_id}/respond`,
      json({ choice: 'approve', text: 'ship it' }),
    );
    expect(answered.status).toBe(200);
    const done = await waitForNode(t.call, node.id, isFinal);
    expect(done).toMatchObject({ state: 'done', outcome: { result: { deployed: true } } });

    const [asked] = await toolResults(t.call, node.id, 1);
    expect(asked).toMatchObject({ name: 'ask_human', status: 'ok' });
    expect(asked?.output).toMatchObject({ request_id: requestId, state: 'open' });
    const turns = await nodeEvents(t.call, node.id, ['node.turn']);
    const second = turns
      .map((e) => e.payload.turn as { index: number; input: { text: string }[] })
      .find((turn) => turn.index === 2);
    const mail = second?.input.find((m) => m.text.startsWith(`Human request ${requestId}`));
    expect(mail?.text).toMatch(new RegExp(`^Human request ${requestId} answered: {`));
    const news = JSON.parse(mail!.text.slice(mail!.text.indexOf('{')));
    expect(news).toMatchObject({
      request_id: requestId,
      state: 'answered',
      response: { choice: 'approve', text: 'ship it', data: null },
    });
  });
  it('a node cancelled while it waits, then revived, reads that its request was cancelled', async () => {
    const node = await createNode(t.call, {
      task: 'ask, be cancelled, come back',
      model: scripted('revived-asker', [
        toolCall('ask_human', { title: 'Go on?', body: 'step 2', kind: 'approval' }),
        submit({ went_on: false }),
      ]),
    });
    const waiting = await waitForNode(t.call, node.id, (n) => n.state === 'waiting');
    const requestId = (waiting.waiting_on as unknown as { request_id: string }).request_id;
    expect((await t.call(`/v1/nodes/${node.id}/cancel`, json({}))).status).toBe(200);
    const request = await ok<{ state: string }>(await t.call(`/v1/human/requests/${requestId}`));
    expect(request.state).toBe('cancelled');
    expect((await t.call(`/v1/nodes/${node.id}/revive`, json({}))).status).toBe(200);
    const done = await waitForNode(t.call, node.id, isFinal);
    expect(done.state).toBe('done');
    const turns = await nodeEvents(t.call, node.id, ['node.turn']);
    const second = turns
      .map((e) => e.payload.turn as { index: number; input: { text: string }[] })
      .find((turn) => turn.index === 2);
    const mail = second?.input.find((m) => m.text.startsWith(`Human request ${requestId}`));
    expect(mail?.text).toMatch(new RegExp(`^Human request ${requestId} cancelled: {`));
    expect(JSON.parse(mail!.text.slice(mail!.text.indexOf('{')))).toMatchObject({
      state: 'cancelled',
      reason: `node ${node.id} is cancelled`,
    });
  });
});
