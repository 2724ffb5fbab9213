/** `client.human` against a real daemon over its unix socket, and its local id checks. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DaemonHandle, startDaemon } from '@svc/daemon';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ConflictError, createLocalClient, Svc, UnprocessableEntityError } from '../src/node.ts';

let home: string;
let daemon: DaemonHandle;
let client: Svc;

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'svc-ch-'));
  daemon = await startDaemon({ home, logLevel: 'warn' });
  client = createLocalClient({ home, maxRetries: 0 });
});
afterAll(async () => {
  await daemon.close();
  rmSync(home, { recursive: true, force: true });
});

describe('client.human', () => {
  it('requests: create, retrieve, replace, respond; the inbox sees each ticket', async () => {
    const request = await client.human.requests.create({ title: 'Color?', options: ['red'] });
    expect(request).toMatchObject({ state: 'open', options: ['red'] });
    await expect(client.human.requests.retrieve(request.id)).resolves.toEqual(request);
    const replaced = await client.human.requests.replace(request.id, {
      title: 'Color, really?',
      options: ['red', 'blue'],
    });
    expect(replaced.ticket_id).not.toBe(request.ticket_id);
    const inbox = await client.human.inbox.list({ limit: 10 });
    expect(inbox.data.map((k) => k.id)).toEqual([replaced.ticket_id]);
    const history = await client.human.inbox.history({ state: 'superseded' });
    expect(history.data.map((k) => k.id)).toEqual([request.ticket_id]);
    const error = await client.human.requests
      .respond(request.id, { choice: 'green' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnprocessableEntityError);
    expect((error as UnprocessableEntityError).field).toBe('choice');
    const answered = await client.human.requests.respond(request.id, { choice: 'blue' });
    expect(answered.response).toMatchObject({ choice: 'blue' });
    // The inbox answers camelCase (SPEC resource map note 4); the request keeps snake_case.
    const { responded_at, ...rest } = answered.response!;
    await expect(client.human.inbox.response(replaced.ticket_id)).resolves.toEqual({
      ...rest,
      respondedAt: responded_at,
    });
  });

  it('inbox: retrieve, progress, respond, cancel; dismiss and cancel on requests', async () => {
    const a = await client.human.requests.create({ title: 'A' });
    const item = await client.human.inbox.retrieve(a.ticket_id);
    // Items camelCase all the way down, nothing snake_case left in them.
    expect(item).toMatchObject({
      requestId: a.id,
      responseSchema: null,
      progressNote: null,
      asker: { nodeId: null, appId: null },
      createdAt: a.created_at,
    });
    expect(JSON.stringify(item)).not.toMatch(/"[a-z]+_[a-z_]+":/);
    // The list envelope keeps its snake_case fields.
    const page = await client.human.inbox.list({ limit: 1 });
    expect(Object.keys(page).sort()).toEqual(['data', 'has_more', 'next_cursor']);
    expect(page.data[0]).toHaveProperty('requestId');
    await expect(client.human.inbox.response(a.ticket_id)).rejects.toBeInstanceOf(ConflictError);
    await expect(client.human.inbox.progress(a.ticket_id, { note: 'soon' })).resolves.toMatchObject(
      { state: 'in_progress', progressNote: 'soon' },
    );
    await expect(client.human.inbox.respond(a.ticket_id, { text: 'done' })).resolves.toMatchObject({
      state: 'answered',
    });
    const b = await client.human.requests.create({ title: 'B' });
    await expect(client.human.inbox.cancel(b.ticket_id)).resolves.toMatchObject({
      state: 'dismissed',
    });
    const c = await client.human.requests.create({ title: 'C' });
    await expect(client.human.requests.dismiss(c.id, { reason: 'no' })).resolves.toMatchObject({
      state: 'dismissed',
    });
    const d = await client.human.requests.create({ title: 'D' });
    await expect(client.human.requests.cancel(d.id)).resolves.toMatchObject({ state: 'cancelled' });
  });

  it('checks request and ticket ids locally: TypeError, no request sent', () => {
    const fetch = vi.fn();
    const offline = new Svc({ baseUrl: 'http://127.0.0.1:9', token: 't', fetch });
    const badRequests = ['tk_01ARZ3NDEKTSV4RRFFQ69G5FAV', 'hr_short', '', 42];
    for (const id of badRequests) {
      const calls = [
        () => offline.human.requests.retrieve(id as string),
        () => offline.human.requests.replace(id as string, { title: 'x' }),
        () => offline.human.requests.respond(id as string, { text: 'x' }),
        () => offline.human.requests.dismiss(id as string),
        () => offline.human.requests.cancel(id as string),
      ];
      for (const call of calls) expect(call).toThrow(/requestId must be a human_request id/);
    }
    const badTickets = ['hr_01ARZ3NDEKTSV4RRFFQ69G5FAV', 'tk_', null];
    for (const id of badTickets) {
      const calls = [
        () => offline.human.inbox.retrieve(id as string),
        () => offline.human.inbox.respond(id as string, { text: 'x' }),
        () => offline.human.inbox.progress(id as string),
        () => offline.human.inbox.cancel(id as string),
        () => offline.human.inbox.response(id as string),
      ];
      for (const call of calls) expect(call).toThrow(/ticketId must be a ticket id/);
    }
    expect(fetch).not.toHaveBeenCalled();
  });
});
