/**
 * Crons (docs/api-v1.md "Crons"): each fire creates a root node with the cron's task, as its
 * creator, so an app's cron never exceeds the app's scope ceiling. A scheduled fire is one
 * transaction: claim the scheduled time (move `next_run_at` on, guarded by its old value), create
 * the node, record `cron.fired`. Whoever loses the claim does nothing, so a scheduled time fires
 * at most once, across restarts and `kill -9` alike. Timing is the scheduler's
 * (`cron-scheduler.ts`); this service decides what a due cron does.
 */

import { type CronCreateBody, isFinal, newId } from '@svc/protocol';
import { ApiError } from '../errors.ts';
import type { Principal } from '../ports.ts';
import { type Cron, type CronRow, toCron } from '../store/crons.ts';
import type { Store } from '../store/index.ts';
import { type Node, type NodeRow, toNode } from '../store/nodes.ts';
import { checkSchedule, nextRunAt } from './cron-schedule.ts';
import type { EventLog } from './events.ts';
import { type CreateBody, type NodeService, titleOf } from './nodes.ts';

export type { CronCreateBody };
export type CronTask = CronCreateBody['task'];

/**
 * A fire this late or less is on time; later (the host slept, the clock jumped, the daemon was
 * stopped) it was missed, and the cron's `missed` policy applies.
 */
export const ON_TIME_MS = 30_000;

export type FireTrigger = 'schedule' | 'missed' | 'manual';

export interface Fired {
  cron: Cron;
  node: Node | null;
  /** Why no node was created; recorded in the `cron.fired` event too. */
  failure: ApiError | null;
}

export interface CronServiceDeps {
  store: Store;
  events: EventLog;
  nodes: Pick<NodeService, 'insertNode'>;
}

export function cronService({ store, events, nodes }: CronServiceDeps) {
  const listeners = new Set<() => void>();
  /** The wall clock of the scheduler's last tick; `NaN` before the first. */
  let lastTickMs = Number.NaN;
  const iso = (ms: number) => new Date(ms).toISOString();

  /** The scheduler re-arms once a change commits. */
  function changed(afterCommit: (cb: () => void) => void): void {
    afterCommit(() => {
      for (const listener of listeners) listener();
    });
  }

  /** The owner sees every cron, an app its own; a node token none (it cannot make one). */
  function appFilter(principal: Principal): { appId: string | null | undefined } | null {
    if (principal.kind === 'owner') return { appId: undefined };
    if (principal.kind === 'app') return { appId: principal.appId };
    return null;
  }

  function visibleRow(id: string, principal: Principal): CronRow {
    const row = store.crons.get(id);
    const filter = appFilter(principal);
    const sees =
      row !== undefined &&
      filter !== null &&
      (filter.appId === undefined || row.app_id === filter.appId);
    if (!sees) throw new ApiError('not_found', `no cron ${id}`, { field: 'id' });
    return row!;
  }

  /**
   * `fn` inside a savepoint of the caller's transaction, undone if it throws, or always with
   * `keep: false`: a node create that fails (or is only tried) leaves no row and no event.
   */
  function savepoint<T>(fn: () => T, keep: boolean): T {
    store.db.sqlite.exec('SAVEPOINT cron_node');
    try {
      const result = fn();
      if (!keep) store.db.sqlite.exec('ROLLBACK TO cron_node');
      return result;
    } catch (error) {
      store.db.sqlite.exec('ROLLBACK TO cron_node');
      throw error;
    } finally {
      store.db.sqlite.exec('RELEASE cron_node');
    }
  }

  /**
   * Who a fire creates its node as: the owner, or the creating app through its token as it is
   * now, so a revoked or expired token fires nothing and the node stays inside the token's list.
   * The owner's token rotates (a new `owner.token`), so an owner's cron is not bound to one.
   */
  function creatorOf(row: CronRow, nowMs: number): Principal {
    if (row.creator_kind === 'owner') {
      return {
        tokenId: row.creator_token_id,
        kind: 'owner',
        appId: null,
        nodeId: null,
        scopes: null,
        expiresAt: null,
      };
    }
    const token = store.tokens.byId(row.creator_token_id);
    const ended =
      token === undefined
        ? 'no longer exists'
        : token.revoked_at !== null
          ? 'was revoked'
          : token.expires_at !== null && Date.parse(token.expires_at) <= nowMs
            ? 'expired'
            : null;
    if (token === undefined || ended !== null) {
      throw new ApiError(
        'forbidden',
        `the token that created cron ${row.id} ${ended}; the cron creates nothing until it is made again with a live token`,
      );
    }
    return {
      tokenId: token.id,
      kind: 'app',
      appId: token.app_id,
      nodeId: null,
      scopes: token.scopes === null ? [] : (JSON.parse(token.scopes) as string[]),
      expiresAt: token.expires_at,
    };
  }

  /** The node of one fire and its `cron.fired` event, in the caller's transaction. */
  function fire(
    row: CronRow,
    scheduledAt: string,
    trigger: FireTrigger,
    nowMs: number,
    afterCommit: (cb: () => void) => void,
  ): Fired {
    let node: NodeRow | null = null;
    let failure: ApiError | null = null;
    try {
      const principal = creatorOf(row, nowMs);
      const task = JSON.parse(row.task) as CreateBody;
      node = savepoint(() => nodes.insertNode(task, principal, afterCommit), true);
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
    changed(afterCommit);
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
  function claimAndFire(
    id: string,
    scheduledAt: string,
    trigger: FireTrigger,
    nowMs: number,
  ): Fired | null {
    return store.db.transaction((afterCommit) => {
      const row = store.crons.get(id);
      if (row === undefined) return null;
      // Late or not, the next time is after now: a cron never fires twice to catch up.
      const from = new Date(Math.max(nowMs, Date.parse(scheduledAt)));
      const next = nextRunAt(row.schedule, row.timezone, from);
      const live = row.overlap === 'skip' ? liveNode(row.last_node_id) : null;
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
        changed(afterCommit);
        return null;
      }
      if (!store.crons.claim(id, scheduledAt, next, iso(nowMs))) return null;
      return fire(row, scheduledAt, trigger, nowMs, afterCommit);
    });
  }

  /** `nodeId` when that node is still queued, running or waiting; else `null`. */
  function liveNode(nodeId: string | null): string | null {
    if (nodeId === null) return null;
    const node = store.nodes.get(nodeId);
    return node !== undefined && !isFinal(node.state) ? nodeId : null;
  }

  /** Moves a cron whose time passed on to its next time from now, without a fire. */
  function skip(row: CronRow, scheduledAt: string, nowMs: number): void {
    store.db.transaction((afterCommit) => {
      const next = nextRunAt(row.schedule, row.timezone, new Date(nowMs));
      if (!store.crons.advance(row.id, scheduledAt, next, iso(nowMs))) return;
      events.record('cron.skipped', row.id, {
        cron_id: row.id,
        reason: 'missed',
        missed_from: scheduledAt,
        next_run_at: next,
      });
      changed(afterCommit);
    });
  }

  /**
   * A wall clock set back (by NTP, a restored VM, a person) leaves next runs counted from the
   * later clock: an hourly cron set back two hours would skip two hours of fires. Each such cron
   * gets its next run counted from now, recorded as `cron.rescheduled`.
   */
  function reanchor(nowMs: number, failed: { id: string; error: unknown }[]): void {
    for (const row of store.crons.ahead(iso(nowMs))) {
      try {
        const next = nextRunAt(row.schedule, row.timezone, new Date(nowMs));
        if (next === null || row.next_run_at === null || next >= row.next_run_at) continue;
        const from = row.next_run_at;
        store.db.transaction((afterCommit) => {
          if (!store.crons.advance(row.id, from, next, iso(nowMs))) return;
          events.record('cron.rescheduled', row.id, {
            cron_id: row.id,
            reason: 'clock_set_back',
            from,
            next_run_at: next,
          });
          changed(afterCommit);
        });
      } catch (error) {
        failed.push({ id: row.id, error });
      }
    }
  }

  /**
   * What a due cron does at `nowMs`: on time (at most `graceMs` late) it fires for its scheduled
   * time; later, `run_once` fires once for the whole gap and `skip` moves on without a fire.
   */
  function evaluate(id: string, nowMs: number, graceMs: number): void {
    const row = store.crons.get(id);
    if (row?.state !== 'active' || row.next_run_at === null) return;
    const scheduledAt = row.next_run_at;
    const due = Date.parse(scheduledAt);
    if (due > nowMs) return;
    if (nowMs - due <= graceMs) claimAndFire(id, scheduledAt, 'schedule', nowMs);
    else if (row.missed === 'run_once') claimAndFire(id, scheduledAt, 'missed', nowMs);
    else skip(row, scheduledAt, nowMs);
  }

  return {
    /** Calls `listener` after every commit that changed a cron's schedule; returns the unsubscribe. */
    onChange(listener: () => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    /** The soonest `next_run_at` of an active cron, or `null`. */
    soonest(): string | null {
      return store.crons.soonest();
    },

    /**
     * Every active cron due at `nowMs` (`graceMs`: how late is still on time). The scheduler
     * calls it on each tick; at start with a grace of 0, so what passed while the daemon was down
     * gets the missed policy. Answers the crons it could not evaluate, with why.
     */
    fireDue(nowMs: number, graceMs: number): { id: string; error: unknown }[] {
      const failed: { id: string; error: unknown }[] = [];
      // A next run is always counted from a time at or before the clock of its day, so the
      // first tick (the clock may have been set back while the daemon was down) and any tick
      // earlier than the last look for next runs counted from a later clock.
      if (!(nowMs >= lastTickMs)) reanchor(nowMs, failed);
      lastTickMs = nowMs;
      for (const row of store.crons.due(iso(nowMs))) {
        try {
          evaluate(row.id, nowMs, graceMs);
        } catch (error) {
          failed.push({ id: row.id, error });
        }
      }
      return failed;
    },

    claimAndFire,

    create(body: CronCreateBody, principal: Principal): Cron {
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
        savepoint(() => nodes.insertNode(body.task, principal, () => {}), false);
        const now = Date.now();
        const row: CronRow = {
          id: newId('cron'),
          name: body.name ?? body.task.title ?? titleOf(body.task.task),
          schedule: body.schedule,
          timezone,
          task: JSON.stringify(body.task),
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
        changed(afterCommit);
        return cron;
      });
    },

    get(id: string, principal: Principal): Cron {
      return toCron(visibleRow(id, principal));
    },

    list(
      principal: Principal,
      q: { state?: Cron['state'] | undefined; before?: string | undefined; limit: number },
    ): Cron[] {
      const filter = appFilter(principal);
      if (filter === null) return [];
      return store.crons.list({ ...filter, ...q }).map(toCron);
    },

    /** Idempotent: a paused cron answers as it is. */
    pause(id: string, principal: Principal): Cron {
      return store.db.transaction((afterCommit) => {
        const row = visibleRow(id, principal);
        if (row.state === 'paused') return toCron(row);
        store.crons.setSchedule(row.id, 'paused', null, new Date().toISOString());
        events.record('cron.paused', row.id, { cron_id: row.id });
        changed(afterCommit);
        return toCron(store.crons.get(row.id)!);
      });
    },

    /** Idempotent: an active cron answers as it is. The next time counts from now. */
    resume(id: string, principal: Principal): Cron {
      return store.db.transaction((afterCommit) => {
        const row = visibleRow(id, principal);
        if (row.state === 'active') return toCron(row);
        const now = new Date();
        const next = nextRunAt(row.schedule, row.timezone, now);
        store.crons.setSchedule(row.id, 'active', next, now.toISOString());
        events.record('cron.resumed', row.id, { cron_id: row.id, next_run_at: next });
        changed(afterCommit);
        return toCron(store.crons.get(row.id)!);
      });
    },

    /**
     * Fires once now, whatever the schedule and state; `next_run_at` stays. A fire that creates
     * no node is recorded all the same, then answered as the error it met.
     */
    run(id: string, principal: Principal): { cron: Cron; node: Node } {
      const fired = store.db.transaction((afterCommit) => {
        const row = visibleRow(id, principal);
        const now = Date.now();
        store.crons.manualFire(row.id, iso(now));
        return fire(row, iso(now), 'manual', now, afterCommit);
      });
      if (fired.node === null) {
        throw fired.failure ?? new ApiError('internal_error', 'the fire created no node');
      }
      return { cron: fired.cron, node: fired.node };
    },

    delete(id: string, principal: Principal): { id: string; deleted: true } {
      return store.db.transaction((afterCommit) => {
        const row = visibleRow(id, principal);
        store.crons.delete(row.id);
        events.record('cron.deleted', row.id, { cron_id: row.id });
        changed(afterCommit);
        return { id: row.id, deleted: true as const };
      });
    },

    /**
     * Re-evaluates now: a time passed unfired fires (on time) or gets the missed policy (late);
     * then `next_run_at` is recomputed from now. A paused cron answers as it is.
     */
    poke(id: string, principal: Principal): Cron {
      return store.db.transaction((afterCommit) => {
        const row = visibleRow(id, principal);
        const now = Date.now();
        evaluate(row.id, now, ON_TIME_MS);
        const after = store.crons.get(row.id)!;
        if (after.state !== 'active') return toCron(after);
        const next = nextRunAt(after.schedule, after.timezone, new Date(now));
        if (
          next !== after.next_run_at &&
          store.crons.advance(row.id, after.next_run_at, next, iso(now))
        ) {
          events.record('cron.rescheduled', row.id, {
            cron_id: row.id,
            reason: 'poke',
            from: after.next_run_at,
            next_run_at: next,
          });
          changed(afterCommit);
        }
        return toCron(store.crons.get(row.id)!);
      });
    },
  };
}

export type CronService = ReturnType<typeof cronService>;
