/** `client.crons` against a real daemon over its unix socket, and its local id checks. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type DaemonHandle, startDaemon } from '@svc/daemon';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLocalClient, NotFoundError, Svc, UnprocessableEntityError } from '../src/node.ts';

const MODEL = { provider: 'scripted' as const, model: 'replay', script: [{ text: 'done' }] };
/** One broker slot, held by an idle stand-in: the nodes fires create stay queued. */
const IDLE_BROKER = fileURLToPath(
  new URL('../../daemon/test/fixtures/idle-broker.ts', import.meta.url),
);
let home: string;
let daemon: DaemonHandle;
let client: Svc;

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'svc-cc-'));
  daemon = await startDaemon({
    home,
    logLevel: 'warn',
    brokers: { concurrency: 1, entry: IDLE_BROKER },
  });
  client = createLocalClient({ home, maxRetries: 0 });
});
afterAll(async () => {
  await daemon.close();
  rmSync(home, { recursive: true, force: true });
});

describe('client.crons', () => {
  it('creates, lists, retrieves, pauses, resumes, runs, pokes and deletes', async () => {
    const cron = await client.crons.create({
      schedule: '0 0 1 1 *',
      timezone: 'Europe/Paris',
      task: { task: 'new year', model: MODEL },
    });
    expect(cron).toMatchObject({ state: 'active', timezone: 'Europe/Paris', missed: 'skip' });
    const page = await client.crons.list({ state: 'active', limit: 10 });
    expect(page.data.map((c) => c.id)).toContain(cron.id);
    await expect(client.crons.retrieve(cron.id)).resolves.toEqual(cron);
    await expect(client.crons.pause(cron.id)).resolves.toMatchObject({ next_run_at: null });
    await expect(client.crons.resume(cron.id)).resolves.toMatchObject({
      state: 'active',
      next_run_at: cron.next_run_at,
    });
    const { cron: fired, node } = await client.crons.run(cron.id);
    expect(fired).toMatchObject({ fire_count: 1, last_node_id: node.id });
    expect(node).toMatchObject({ task: 'new year', parent_id: null });
    await expect(client.crons.poke(cron.id)).resolves.toMatchObject({ fire_count: 1 });
    await expect(client.crons.delete(cron.id)).resolves.toEqual({ id: cron.id, deleted: true });
    await expect(client.crons.retrieve(cron.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('a bad expression is an UnprocessableEntityError naming the field', async () => {
    const error = await client.crons
      .create({ schedule: 'sometimes', task: { task: 'x', model: MODEL } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnprocessableEntityError);
    expect((error as UnprocessableEntityError).field).toBe('schedule');
  });

  it('checks a cron id locally: TypeError, no request sent', () => {
    const fetch = vi.fn();
    const offline = new Svc({ baseUrl: 'http://127.0.0.1:9', token: 't', fetch });
    const bad = ['nd_01ARZ3NDEKTSV4RRFFQ69G5FAV', 'cron_short', '', 42];
    for (const id of bad) {
      for (const method of ['retrieve', 'pause', 'resume', 'run', 'delete', 'poke'] as const) {
        expect(() => offline.crons[method](id as string), `${method}(${id})`).toThrow(
          /cronId must be a cron id/,
        );
      }
    }
    expect(fetch).not.toHaveBeenCalled();
  });
});
