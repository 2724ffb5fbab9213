import { type cronCreateBodySchema, newId } from '@svc/protocol';
import type { z } from 'zod';
import { ApiError } from '../errors.ts';
import { titleOf } from '../nodes/create.ts';
import type { Principal } from '../ports.ts';
import { type CronDeps, iso } from './deps.ts';
import { savepoint } from './savepoint.ts';
import { checkSchedule, nextRunAt } from './schedule.ts';
import { type Cron, type CronRow, toCron } from './store.ts';

export type CronCreateBody = z.output<typeof cronCreateBodySchema>;
export type CronTask = CronCreateBody['task'];

/** A new active cron whose task would make a node now, as its creator. */
export function createCron(deps: CronDeps, body: CronCreateBody, principal: Principal): Cron {
  const { store, events, nodes } = deps;
  if (principal.kind === 'node') {
    throw new ApiError(
      'forbidden',
      'a node cannot create crons: its token ends with its broker and a cron outlives it; the owner or an app creates them',
    );
  }
  // `svc:schedule` (the route's gate) is all it takes, as SPEC's scope table has it: a fire
  // starts a root node as the creator, whose scopes stay inside the creator's ceiling.
  const timezone = body.timezone ?? 'UTC';
  checkSchedule(body.schedule, timezone);
  return store.db.transaction((afterCommit) => {
    // The task is checked now as a node create would be (scopes inside the creator's
    // ceiling, profile, model, output_schema), then undone: a cron that could never fire is
    // refused with the reason a node create would give.
    savepoint(store, () => nodes.insertNode(body.task, principal, () => {}), false);
    const now = Date.now();
    const row: CronRow = {
      id: newId('cron'),
      name: body.name ?? body.task.title ?? titleOf(body.task.task),
      schedule: body.schedule,
      timezone,
      task: body.task,
      state: 'active',
      missed: body.missed ?? 'skip',
      overlap: body.overlap ?? 'skip',
      next_run_at: nextRunAt(body.schedule, timezone, new Date(now)),
      last_run_at: null,
      last_node_id: null,
      fire_count: 0,
      app_id: principal.appId,
      creator_kind: principal.kind === 'owner' ? 'owner' : 'app',
      creator_token_id: principal.tokenId,
      created_at: iso(now),
      updated_at: iso(now),
    };
    store.crons.insert(row);
    const cron = toCron(row);
    events.record('cron.created', row.id, { cron });
    deps.changed(afterCommit);
    return cron;
  });
}
