/** `svc human …` against a real daemon, in-process, and its usage errors before any request. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useIdleDaemon } from './idle-daemon.ts';

const idle = useIdleDaemon('svc-cli-h-');
const { svc } = idle;
const HR = 'hr_01ARZ3NDEKTSV4RRFFQ69G5FAV';
const TK = 'tk_01ARZ3NDEKTSV4RRFFQ69G5FAV';

const askJson = async (...args: string[]) => {
  const res = await svc('human', 'ask', ...args, '--json');
  expect(res.code, res.stderr).toBe(0);
  return JSON.parse(res.stdout);
};

describe('svc human', () => {
  it('ask, show, inbox, progress, respond with a choice, history', async () => {
    const request = await askJson(
      'Which',
      'color?',
      '--option',
      'red',
      '--option',
      'blue',
      '--body',
      'for the *logo*',
    );
    expect(request).toMatchObject({
      title: 'Which color?',
      options: ['red', 'blue'],
      body: 'for the *logo*',
      state: 'open',
    });
    const shown = await svc('human', 'show', request.id);
    expect(shown.stdout).toMatch(/options\s+red, blue/);
    const ticket = await svc('human', 'show', request.ticket_id, '--json');
    expect(JSON.parse(ticket.stdout)).toMatchObject({
      requestId: request.id,
      asker: { nodeId: null, appId: null },
    });
    const inbox = await svc('human', 'inbox');
    expect(inbox.stdout).toMatch(/TICKET\s+STATE\s+KIND\s+ASKER\s+TITLE/);
    expect(inbox.stdout).toContain(
      `${request.ticket_id}  open   question  the owner  Which color?`,
    );
    const progress = await svc('human', 'progress', request.ticket_id, '--note', 'thinking');
    expect(progress.stdout).toMatch(/note\s+thinking/);
    const answered = await svc(
      'human',
      'respond',
      request.id,
      '--choice',
      'blue',
      '--text',
      'bold',
    );
    expect(answered).toMatchObject({ code: 0, stdout: `answered ${request.id}: blue — bold\n` });
    const history = JSON.parse((await svc('human', 'history', '--json')).stdout);
    expect(history.data.map((t: { id: string }) => t.id)).toContain(request.ticket_id);
  });

  it('respond by ticket with --data from a file; dismiss and cancel', async () => {
    const approval = await askJson('Deploy?', '--kind', 'approval');
    expect(approval.options).toEqual(['approve', 'reject']);
    const file = join(idle.home(), 'answer.json');
    writeFileSync(file, '{"when":"now"}');
    const res = await svc(
      'human',
      'respond',
      approval.ticket_id,
      '--choice',
      'approve',
      '--data',
      `@${file}`,
      '--json',
    );
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({
      id: approval.ticket_id,
      requestId: approval.id,
      state: 'answered',
    });
    // Without --json the ticket form echoes what was answered, as the request form does.
    const asked = await askJson('Lunch?');
    const plain = await svc('human', 'respond', asked.ticket_id, '--text', 'soup');
    expect(plain).toMatchObject({
      code: 0,
      stdout: `answered ${asked.ticket_id} (request ${asked.id}): soup\n`,
    });
    const shown = JSON.parse((await svc('human', 'show', approval.id, '--json')).stdout);
    expect(shown.response).toMatchObject({ choice: 'approve', data: { when: 'now' } });

    const a = await askJson('Dismiss me');
    const dismissed = await svc('human', 'dismiss', a.id, '--reason', 'later', '--json');
    expect(JSON.parse(dismissed.stdout).state).toBe('dismissed');
    const b = await askJson('Decline me');
    const declined = await svc('human', 'dismiss', b.ticket_id, '--json');
    expect(JSON.parse(declined.stdout)).toMatchObject({ id: b.ticket_id, state: 'dismissed' });
    const c = await askJson('Withdraw me');
    const cancelled = await svc('human', 'cancel', c.id);
    expect(cancelled.stdout).toMatch(/state\s+cancelled/);
    const again = await svc('human', 'respond', c.id, '--text', 'too late');
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^svc: .*'cancelled'/);
    const wrong = await svc(
      'human',
      'respond',
      (await askJson('Pick', '--option', 'x')).id,
      '--choice',
      'y',
    );
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/choice/);
  });

  it.each([
    [['human', 'ask'], /missing required argument 'title'/],
    [['human', 'ask', 'x', '--kind', 'poll'], /--kind must be question, approval, review/],
    [['human', 'ask', 'x', '--option', ''], /--option/],
    [['human', 'show', 'nd_01ARZ3NDEKTSV4RRFFQ69G5FAV'], /request id \(hr_…\) or a ticket id/],
    [['human', 'inbox', '--state', 'answered'], /--state must be open or in_progress/],
    [['human', 'inbox', '--limit', '0'], /--limit/],
    [['human', 'history', '--limit', '500'], /--limit/],
    [['human', 'respond', HR], /needs --choice, --text or --data/],
    [['human', 'respond', TK, '--data', '{oops'], /--data: the argument is not valid JSON/],
    [['human', 'respond', 'hr_x', '--text', 'y'], /request id \(hr_…\) or a ticket id/],
    [['human', 'progress', HR], /ticket id must be tk_/],
    [['human', 'dismiss', 'x'], /request id \(hr_…\) or a ticket id/],
    [['human', 'cancel', TK], /request id must be hr_/],
  ])('svc %j exits 2 before any request', async (args, message) => {
    await idle.expectUsage(args, message);
  });
});
