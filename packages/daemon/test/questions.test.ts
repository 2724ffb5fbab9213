/**
 * `questions` end to end on real brokers with the scripted model: a node of an app's run asks
 * with `ask_human`, the run's events carry a `run.question`, the app (and only it, or the owner)
 * reads the question and answers it through the inbox's own checks, and the node wakes with the
 * answer and finishes. A question answered twice, or after the inbox answered, is 409.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type EventDto,
  isFinal,
  nodeEvents,
  ok,
  scripted,
  submit,
  toolCall,
  waitForNode,
} from './broker-fixtures.ts';
import { envelope, json, startTestDaemon, type TestDaemon } from './helpers.ts';

let t: TestDaemon;
let app: string;
let other: string;
beforeAll(async () => {
  t = await startTestDaemon({ brokers: { concurrency: 2 } });
  app = (await t.appToken(['svc:llm', 'svc:act'], { app_id: 'asker' })).token;
  other = (await t.appToken(['svc:llm', 'svc:act'], { app_id: 'other' })).token;
});
afterAll(async () => {
  await t?.stop();
});

interface Run {
  id: string;
  node_id: string;
  state: string;
}
interface Question {
  id: string;
  run_id: string;
  node_id: string;
  request_id: string;
  kind: string;
  title: string;
  body: string;
  options: string[];
  response_schema: unknown;
  state: string;
  answer: { text: string | null; choice: string | null; data: unknown } | null;
  expires_at: string | null;
  created_at: string;
  updated_at: string;
}

/** A run of `app` whose root asks `ask`, then submits what it was told. */
async function askingRun(ask: Record<string, unknown>): Promise<Run> {
  const res = await t.call('/v1/runs', {
    ...json({
      task: 'ask, then finish',
      model: scripted('asker', [toolCall('ask_human', ask), submit({ finished: true })]),
    }),
    token: app,
  });
  return ok<Run>(res);
}

/** The run's `run.question` event, once the root waits on its request. */
async function questionOf(run: Run): Promise<EventDto> {
  await waitForNode(t.call, run.node_id, (n) => n.state === 'waiting');
  const page = await ok<{ data: EventDto[] }>(
    await t.call(`/v1/runs/${run.id}/events?kinds=run.question`, { token: app }),
  );
  expect(page.data).toHaveLength(1);
  return page.data[0]!;
}

const get = (id: string, token?: string) =>
  t.call(`/v1/questions/${id}`, token === undefined ? {} : { token });
const answer = (id: string, body: unknown, token?: string) =>
  t.call(`/v1/questions/${id}/answer`, { ...json(body), ...(token !== undefined && { token }) });

describe('questions', () => {
  it('the app answers its run’s question; the node wakes with the answer and finishes', async () => {
    const run = await askingRun({
      title: 'Which region?',
      body: 'pick one',
      options: ['eu', 'us'],
    });
    const event = await questionOf(run);
    const questionId = event.payload.question_id as string;
    expect(event).toMatchObject({
      kind: 'run.question',
      subject_id: run.id,
      payload: { run_id: run.id, node_id: run.node_id, kind: 'question', title: 'Which region?' },
    });
    expect(questionId).toMatch(/^q_[0-7][0-9A-HJKMNP-TV-Z]{25}$/);

    const asked = await ok<Question>(await get(questionId, app));
    expect(asked).toMatchObject({
      id: questionId,
      run_id: run.id,
      node_id: run.node_id,
      request_id: event.payload.request_id,
      kind: 'question',
      title: 'Which region?',
      body: 'pick one',
      options: ['eu', 'us'],
      response_schema: null,
      state: 'open',
      answer: null,
    });
    // The owner sees it too; another app, as if it did not exist.
    expect((await get(questionId)).status).toBe(200);
    const hidden = await get(questionId, other);
    expect(hidden.status).toBe(404);
    expect(await envelope(hidden)).toMatchObject({ code: 'not_found', field: 'id' });
    expect((await answer(questionId, { choice: 'eu' }, other)).status).toBe(404);

    // The inbox's checks: a choice not offered is 422 and changes nothing.
    const wrong = await answer(questionId, { choice: 'mars' }, app);
    expect(wrong.status).toBe(422);
    expect(await envelope(wrong)).toMatchObject({ code: 'validation_failed', field: 'choice' });
    const empty = await answer(questionId, {}, app);
    expect(await envelope(empty)).toMatchObject({ code: 'validation_failed', field: 'text' });
    expect(await ok<Question>(await get(questionId, app))).toMatchObject({ state: 'open' });

    const answered = await ok<Question>(
      await answer(questionId, { choice: 'eu', text: 'closest' }, app),
    );
    expect(answered).toMatchObject({
      state: 'answered',
      answer: { choice: 'eu', text: 'closest', data: null },
    });
    const done = await waitForNode(t.call, run.node_id, isFinal);
    expect(done).toMatchObject({ state: 'done', outcome: { result: { finished: true } } });

    // The node read the answer as mail from the app.
    const mail = await nodeEvents(t.call, run.node_id, ['node.mail']);
    const news = mail
      .map((e) => e.payload.mail as { from: { kind: string; id: string | null }; text: string })
      .find((m) => m.text.startsWith(`Human request ${asked.request_id} answered`));
    expect(news?.from).toEqual({ kind: 'app', id: 'asker' });
    expect(JSON.parse(news!.text.slice(news!.text.indexOf('{')))).toMatchObject({
      response: { choice: 'eu', text: 'closest' },
    });
    // The human request is the same one, answered once.
    const request = await ok<{ state: string; response: unknown }>(
      await t.call(`/v1/human/requests/${asked.request_id}`),
    );
    expect(request).toMatchObject({ state: 'answered', response: { choice: 'eu' } });

    const again = await answer(questionId, { choice: 'us' }, app);
    expect(again.status).toBe(409);
    expect(await envelope(again)).toMatchObject({ code: 'invalid_state' });
  });

  it('answered in the inbox first, the question reads answered and the app’s answer is 409', async () => {
    const run = await askingRun({
      title: 'How many replicas?',
      body: '',
      response_schema: {
        type: 'object',
        properties: { n: { type: 'integer' } },
        required: ['n'],
      },
    });
    const questionId = (await questionOf(run)).payload.question_id as string;
    const q = await ok<Question>(await get(questionId, app));
    expect(q.response_schema).toMatchObject({ required: ['n'] });
    const bad = await answer(questionId, { data: { n: 'three' } }, app);
    expect(bad.status).toBe(422);
    expect(await envelope(bad)).toMatchObject({ field: 'data.n' });

    const request = await ok<{ ticket_id: string }>(
      await t.call(`/v1/human/requests/${q.request_id}`),
    );
    const inbox = await t.call(
      `/v1/human/inbox/${request.ticket_id}/respond`,
      json({ data: { n: 3 } }),
    );
    expect(inbox.status).toBe(200);
    expect(await ok<Question>(await get(questionId, app))).toMatchObject({
      state: 'answered',
      answer: { data: { n: 3 } },
    });
    const late = await answer(questionId, { data: { n: 4 } }, app);
    expect(late.status).toBe(409);
    await waitForNode(t.call, run.node_id, isFinal);
  });

  it('a node outside any run asks no question; its request stays the inbox’s alone', async () => {
    const node = await ok<{ id: string }>(
      await t.call(
        '/v1/nodes',
        json({
          task: 'ask outside a run',
          model: scripted('loner', [
            toolCall('ask_human', { title: 'Anyone?', body: '' }),
            submit({ ok: true }),
          ]),
        }),
      ),
    );
    const waiting = await waitForNode(t.call, node.id, (n) => n.state === 'waiting');
    const requestId = (waiting.waiting_on as unknown as { request_id: string }).request_id;
    const events = await (await t.call('/v1/events?follow=false&kinds=run.question')).text();
    expect(events).not.toContain(requestId);
    const request = await ok<{ ticket_id: string }>(
      await t.call(`/v1/human/requests/${requestId}`),
    );
    await t.call(`/v1/human/inbox/${request.ticket_id}/respond`, json({ text: 'me' }));
    await waitForNode(t.call, node.id, isFinal);
  });

  it('a narrower token of the app may not answer: the answer steers the node, as a reply does', async () => {
    const narrow = (await t.appToken([], { app_id: 'asker' })).token;
    const run = await askingRun({ title: 'Go wider?', body: '' });
    const questionId = (await questionOf(run)).payload.question_id as string;
    expect((await get(questionId, narrow)).status).toBe(200);
    const refused = await answer(questionId, { text: 'do something wider' }, narrow);
    expect(refused.status).toBe(403);
    expect(await envelope(refused)).toMatchObject({ code: 'scope_missing', field: 'svc:llm' });
    expect(await ok<Question>(await get(questionId, app))).toMatchObject({ state: 'open' });
    await ok<Question>(await answer(questionId, { text: 'no' }, app));
    await waitForNode(t.call, run.node_id, isFinal);
  });

  it('deleting the run takes its questions; the human request stays in the inbox history', async () => {
    const run = await askingRun({ title: 'Still there?', body: '' });
    const event = await questionOf(run);
    const questionId = event.payload.question_id as string;
    await ok<Question>(await answer(questionId, { text: 'yes' }, app));
    await waitForNode(t.call, run.node_id, isFinal);
    expect((await t.call(`/v1/runs/${run.id}`, { method: 'DELETE', token: app })).status).toBe(200);
    const gone = await get(questionId, app);
    expect(gone.status).toBe(404);
    expect(await envelope(gone)).toMatchObject({ code: 'not_found', field: 'id' });
    expect((await get(questionId)).status).toBe(404);
    const request = await ok<{ state: string }>(
      await t.call(`/v1/human/requests/${event.payload.request_id as string}`),
    );
    expect(request.state).toBe('answered');
  });

  it('a malformed question id is 422; an unknown one 404', async () => {
    expect((await get('q_nope')).status).toBe(422);
    expect((await get('q_01ARZ3NDEKTSV4RRFFQ69G5FAV')).status).toBe(404);
    expect((await answer('q_01ARZ3NDEKTSV4RRFFQ69G5FAV', { text: 'x' })).status).toBe(404);
  });
});
