/**
 * One fire of a cron: its node and its `cron.fired` event, in the caller's transaction, and the
 * claim that makes a scheduled time fire at most once.
 */
import { isFinal } from '@svc/protocol';
import { ApiError } from '../errors.ts';
import type { CreateBody } from '../nodes/create.ts';
import type { Node, NodeRow } from '../nodes/store/nodes.ts';
import { toNode } from '../nodes/store/to-node.ts';
import type { AfterCommit } from '../ports.ts';
import { creatorOf } from './creator.ts';
import { type CronDeps, iso } from './deps.ts';
import { savepoint } from './savepoint.ts';
import { nextRunAt } from './schedule.ts';
import { type Cron, type CronRow, toCron } from './store.ts';

export type FireTrigger = 'schedule' | 'missed' | 'manual';

export interface Fired {
  cron: Cron;
  node: Node | null;
  /** Why no node was created; recorded in the `cron.fired` event too. */
  failure: ApiError | null;
}

/** The node of one fire and its `cron.fired` event, in the caller's transaction. */
export function fire(
  deps: CronDeps,
  row: CronRow,
  scheduledAt: string,
  trigger: FireTrigger,
  nowMs: number,
  afterCommit: AfterCommit,
): Fired {
  const { store, events, nodes } = deps;
  let node: NodeRow | null = null;
  let failure: ApiError | null = null;
  try {
    const principal = creatorOf(store, row, nowMs);
    const task = row.task as CreateBody;
    node = savepoint(store, () => nodes.insertNode(task, principal, afterCommit), true);
  } catch (error) {
    // The fire stays recorded (the claim holds): retrying the same time would fail alike.
    failure =
      error instanceof ApiError
        ? error
        : new ApiError('internal_error', `the node could not be created: ${String(error)}`);
  }
  store.crons.setLastNode(row.id, node?.id ?? null);
  events.record('cron.fired', row.id, {
    cron_id: row.id,
    scheduled_at: scheduledAt,
    trigger,
    node_id: node?.id ?? null,
    error: failure === null ? null : { code: failure.code, message: failure.message },
  });
  deps.changed(afterCommit);
  return {
    cron: toCron(store.crons.get(row.id)!),
    node: node === null ? null : toNode(node),
    failure,
  };
}

/**
 * Fires `id` for `scheduledAt` if this call wins the claim on that time; `null` when it was
 * claimed already (or the cron was paused, deleted or moved on meanwhile).
 */
export function claimAndFire(
  deps: CronDeps,
  id: string,
  scheduledAt: string,
  trigger: FireTrigger,
  nowMs: number,
): Fired | null {
  const { store, events } = deps;
  return store.db.transaction((afterCommit) => {
    const row = store.crons.get(id);
    if (row === undefined) return null;
    // Late or not, the next time is after now: a cron never fires twice to catch up.
    const from = new Date(Math.max(nowMs, Date.parse(scheduledAt)));
    const next = nextRunAt(row.schedule, row.timezone, from);
    const live = row.overlap === 'skip' ? liveNode(deps, row.last_node_id) : null;
    if (live !== null) {
      // The last fire's node still works: a frequent schedule must not pile up nodes.
      if (!store.crons.advance(id, scheduledAt, next, iso(nowMs))) return null;
      events.record('cron.skipped', id, {
        cron_id: id,
        reason: 'overlap',
        scheduled_at: scheduledAt,
        node_id: live,
        next_run_at: next,
      });
      deps.changed(afterCommit);
      return null;
    }
    if (!store.crons.claim(id, scheduledAt, next, iso(nowMs))) return null;
    return fire(deps, row, scheduledAt, trigger, nowMs, afterCommit);
  });
}

/** `nodeId` when that node is still queued, running or waiting; else `null`. */
function liveNode({ store }: Pick<CronDeps, 'store'>, nodeId: string | null): string | null {
  if (nodeId === null) return null;
  const node = store.nodes.get(nodeId);
  return node !== undefined && !isFinal(node.state) ? nodeId : null;
}
