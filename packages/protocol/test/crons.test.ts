import { describe, expect, it } from 'vitest';
import {
  cronCreateBodySchema,
  cronListQuerySchema,
  cronsRoutes,
  findRoute,
  newId,
  routeById,
} from '../src/index.ts';

describe('cron routes', () => {
  it('gate every change by svc:schedule and reading by any token', () => {
    const auth = Object.fromEntries(cronsRoutes.map((r) => [r.id, r.auth]));
    const schedule = { kind: 'scope', scope: 'svc:schedule' };
    for (const id of ['create', 'pause', 'resume', 'run', 'delete', 'poke']) {
      expect(auth[`crons.${id}`], id).toEqual(schedule);
    }
    expect(auth['crons.list']).toEqual({ kind: 'token' });
    expect(auth['crons.retrieve']).toEqual({ kind: 'token' });
  });

  it('map delete to DELETE /v1/crons/{id} and the verbs to POSTs under it', () => {
    const id = newId('cron');
    expect(findRoute('DELETE', `/v1/crons/${id}`)).toMatchObject({
      route: { id: 'crons.delete' },
      params: { id },
    });
    for (const verb of ['pause', 'resume', 'run', 'poke'] as const) {
      expect(routeById(`crons.${verb}`)).toMatchObject({
        method: 'POST',
        path: `/v1/crons/{id}/${verb}`,
      });
    }
  });
});

describe('cron schemas', () => {
  const task = { task: 'x' };

  it('take a root node create body as the task (no parent_id), strictly', () => {
    expect(cronCreateBodySchema.safeParse({ schedule: '* * * * *', task }).success).toBe(true);
    for (const body of [
      { schedule: '* * * * *', task: { ...task, parent_id: newId('node') } },
      { schedule: '* * * * *', task, missed: 'twice' },
      { schedule: '* * * * *', task, extra: 1 },
      { schedule: '', task },
      { task },
    ]) {
      expect(cronCreateBodySchema.safeParse(body).success, JSON.stringify(body)).toBe(false);
    }
  });

  it('list by state with a cron id cursor', () => {
    expect(cronListQuerySchema.parse({ state: 'paused', limit: '5' })).toEqual({
      state: 'paused',
      limit: 5,
    });
    expect(cronListQuerySchema.safeParse({ after: newId('node') }).success).toBe(false);
  });
});
