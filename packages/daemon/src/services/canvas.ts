/**
 * The canvas (docs/api-v1.md "Canvas"): what needs the person, the visible nodes at one event
 * seq, the live agents, and pruning trees that ended long ago. Who sees which node is the nodes
 * service's rule: snapshot and roster, views of the nodes as `nodes.list` is, by its read
 * visibility (`readVisibility`); attention, a list of what the caller is to act on, by the
 * visibility writes use, since another app's nodes read through `svc:conversations:read:app`
 * cannot be acted on. Crons are seen through the crons service's own rule.
 */
import {
  type ATTENTION_KINDS,
  type AttentionItem,
  type CanvasNode,
  type CanvasSnapshot,
  LIVE_STATES,
  OPEN_TICKET_STATES,
  PRUNE_DEFAULT_OLDER_THAN_S,
  type CanvasPruneResult as PruneResult,
  type RosterEntry,
  TASK_SUMMARY_MAX,
} from '@svc/protocol';
import { ApiError } from '../errors.ts';
import type { Logger } from '../lifecycle/logger.ts';
import type { Principal } from '../ports.ts';
import type { BrokerRow } from '../store/brokers.ts';
import type { Store } from '../store/index.ts';
import { type NodeRow, toNode, type WaitingOn } from '../store/nodes.ts';
import type { CronService } from './crons.ts';
import type { EventLog } from './events.ts';
import type { NodeService } from './nodes.ts';
import { type RemovedNode, removeTree, removeWorktrees } from './tree-removal.ts';

export type AttentionKind = (typeof ATTENTION_KINDS)[number];
export type { AttentionItem, CanvasNode, CanvasSnapshot, PruneResult, RosterEntry };

type LiveState = (typeof LIVE_STATES)[number];

/** Each source of attention items is read up to this many rows: the list stays bounded. */
const SOURCE_MAX = 1000;
/** Pages of open tickets read for one caller at most (50,000 tickets): a bound, not an expectation. */
const TICKET_PAGES = 50;
const CRON_PAGE = 200;
const PRUNE_LIMIT_DEFAULT = 500;

export interface CanvasServiceDeps {
  store: Store;
  events: EventLog;
  nodes: Pick<NodeService, 'visibility' | 'readVisibility' | 'readableRow'>;
  crons: Pick<CronService, 'list'>;
  home: string;
  logger: Pick<Logger, 'warn'>;
}

export function canvasService({ store, events, nodes, crons, home, logger }: CanvasServiceDeps) {
  // ── attention ─────────────────────────────────────────────────────────────────────────────

  /**
   * Open tickets, newest first, page after page: the caller filters them by what it may see, so
   * one page of everyone's could hold none of an app's. Bounded: at most `TICKET_PAGES` pages.
   */
  function* openTickets() {
    let before: string | undefined;
    for (let page = 0; page < TICKET_PAGES; page++) {
      const rows = store.human.tickets({ states: OPEN_TICKET_STATES, before, limit: SOURCE_MAX });
      yield* rows;
      if (rows.length < SOURCE_MAX) return;
      before = rows.at(-1)!.id;
    }
  }

  function ticketItems(principal: Principal): AttentionItem[] {
    const vis = nodes.visibility(principal);
    const items: AttentionItem[] = [];
    for (const ticket of openTickets()) {
      if (items.length >= SOURCE_MAX) break;
      const request = store.human.request(ticket.request_id);
      if (request === undefined) continue;
      // The asking node's visibility decides; a request no node asked is its app's (or the
      // owner's, who sees every one).
      const sees =
        principal.kind === 'owner' ||
        (request.node_id !== null && store.nodes.visible(request.node_id, vis) !== undefined) ||
        (request.node_id === null &&
          principal.kind === 'app' &&
          request.app_id === principal.appId);
      if (!sees) continue;
      const asker =
        request.node_id !== null
          ? `node ${request.node_id}`
          : request.app_id !== null
            ? `app ${request.app_id}`
            : 'the owner';
      const progress =
        ticket.progress_note === null ? '' : ` (in progress: ${ticket.progress_note})`;
      items.push({
        kind: 'ticket',
        node_id: request.node_id,
        ticket_id: ticket.id,
        cron_id: null,
        title: ticket.title,
        reason: `a ${ticket.kind} from ${asker} awaits an answer${progress}`,
        since: ticket.created_at,
      });
    }
    return items;
  }

  function nodeItems(principal: Principal): AttentionItem[] {
    const vis = nodes.visibility(principal);
    const items: AttentionItem[] = [];
    const item = (kind: AttentionKind, row: NodeRow, reason: string, since: string) => ({
      kind,
      node_id: row.id,
      ticket_id: null,
      cron_id: null,
      title: row.title,
      reason,
      since,
    });
    for (const row of store.nodes.list(vis, { states: ['failed'], limit: SOURCE_MAX })) {
      const reason = row.state_reason ?? toNode(row).outcome?.error?.message ?? 'failed';
      items.push(item('node_failed', row, reason, row.finished_at ?? row.updated_at));
    }
    for (const row of store.nodes.list(vis, { states: ['waiting'], limit: SOURCE_MAX })) {
      const waiting = row.waiting_on === null ? null : (JSON.parse(row.waiting_on) as WaitingOn);
      if (waiting?.for === 'budget') {
        items.push(item('node_budget', row, row.state_reason ?? 'budget reached', row.updated_at));
      } else if (waiting?.for === 'human') {
        // An open request is in the inbox: its ticket is the item. One that closed without
        // waking the node leaves nothing there that would unblock it.
        const request = store.human.request(waiting.request_id);
        const state = request?.state ?? 'gone';
        if (state === 'open' || state === 'in_progress') continue;
        const reason = `waits on human request ${waiting.request_id}, which is ${state}: nothing in the inbox will wake it; send it a message`;
        items.push(item('node_waiting_human', row, reason, row.updated_at));
      }
    }
    return items;
  }

  function cronItems(principal: Principal): AttentionItem[] {
    const items: AttentionItem[] = [];
    let before: string | undefined;
    for (let read = 0; read < SOURCE_MAX; read += CRON_PAGE) {
      const page = crons.list(principal, { before, limit: CRON_PAGE });
      for (const cron of page) {
        const fired = store.canvas.lastCronFire(cron.id);
        if (fired === undefined) continue;
        const error = (JSON.parse(fired.payload) as { error?: { code: string; message: string } })
          .error;
        if (error == null) continue;
        items.push({
          kind: 'cron_failed',
          node_id: null,
          ticket_id: null,
          cron_id: cron.id,
          title: cron.name,
          reason: `its last fire created no node: ${error.code}: ${error.message}`,
          since: fired.created_at,
        });
      }
      if (page.length < CRON_PAGE) break;
      before = page.at(-1)!.id;
    }
    return items;
  }

  /** Every item the caller may see, newest first. */
  function attentionItems(principal: Principal): AttentionItem[] {
    return [...ticketItems(principal), ...nodeItems(principal), ...cronItems(principal)].sort(
      (a, b) => compareKeys(keyOf(b), keyOf(a)),
    );
  }

  // ── snapshot and roster ───────────────────────────────────────────────────────────────────

  function toCanvasNode(row: NodeRow): CanvasNode {
    const node = toNode(row);
    return {
      id: node.id,
      parent_id: node.parent_id,
      root_id: node.root_id,
      run_id: node.run_id,
      app_id: node.app_id,
      profile: node.profile,
      title: node.title,
      task_summary: node.task.slice(0, TASK_SUMMARY_MAX),
      state: node.state,
      state_reason: node.state_reason,
      waiting_on: node.waiting_on,
      model: node.model,
      usage: node.usage,
      created_at: node.created_at,
      updated_at: node.updated_at,
      finished_at: node.finished_at,
    };
  }

  function rosterEntry(row: NodeRow, broker: BrokerRow | undefined): RosterEntry {
    const node = toNode(row);
    return {
      node_id: node.id,
      title: node.title,
      profile: node.profile,
      model: node.model,
      state: node.state,
      state_reason: node.state_reason,
      waiting_on: node.waiting_on,
      broker:
        broker === undefined
          ? null
          : { pid: broker.pid, since: broker.started_at, claimed_at: broker.claimed_at },
      usage: node.usage,
      budgets: node.budgets,
      since: node.started_at ?? node.created_at,
      last_turn_at: store.canvas.lastTurnAt(node.id),
    };
  }

  // ── prune ─────────────────────────────────────────────────────────────────────────────────

  return {
    attention(
      principal: Principal,
      q: {
        kinds?: readonly AttentionKind[] | undefined;
        after?: string | undefined;
        limit: number;
      },
    ) {
      const after = q.after === undefined ? undefined : parseCursor(q.after);
      const wanted = q.kinds === undefined ? null : new Set(q.kinds);
      const all = attentionItems(principal).filter(
        (item) =>
          (wanted === null || wanted.has(item.kind)) &&
          (after === undefined || compareKeys(keyOf(item), after) < 0),
      );
      const data = all.slice(0, q.limit);
      const hasMore = all.length > q.limit;
      return {
        data,
        has_more: hasMore,
        next_cursor: hasMore ? cursorOf(data.at(-1)!) : null,
      };
    },

    attentionCounts(principal: Principal) {
      const byKind: Record<AttentionKind, number> = {
        ticket: 0,
        node_failed: 0,
        node_waiting_human: 0,
        node_budget: 0,
        cron_failed: 0,
      };
      const items = attentionItems(principal);
      for (const item of items) byKind[item.kind]++;
      return { total: items.length, by_kind: byKind };
    },

    /** The visible nodes and the last event seq, read in one transaction. */
    snapshot(principal: Principal, q: { limit: number; rootId?: string | undefined }) {
      if (q.rootId !== undefined) nodes.readableRow(q.rootId, principal, 'root_id');
      const vis = nodes.readVisibility(principal);
      return store.canvas.read((): CanvasSnapshot => {
        const seq = store.events.lastSeq();
        const rows = store.nodes.list(vis, { rootId: q.rootId, limit: q.limit + 1 });
        return {
          seq,
          nodes: rows.slice(0, q.limit).map(toCanvasNode),
          truncated: rows.length > q.limit,
        };
      });
    },

    /** Live nodes, newest first, `limit + 1` of them (the caller pages). */
    roster(
      principal: Principal,
      q: { states?: readonly LiveState[] | undefined; before?: string | undefined; limit: number },
    ): RosterEntry[] {
      const vis = nodes.readVisibility(principal);
      const live = new Map<string, BrokerRow>();
      // Oldest first, so a node's newest broker wins.
      for (const broker of store.brokers.live()) live.set(broker.node_id, broker);
      return store.nodes
        .list(vis, { states: q.states ?? LIVE_STATES, before: q.before, limit: q.limit })
        .map((row) => rosterEntry(row, live.get(row.id)));
    },

    /**
     * Removes root trees whose every node is final and ended over `olderThanS` ago: rows (turns,
     * mail, reports, jobs go with them, and a run's row with its root; each node's `node:<id>`
     * memory documents too), then worktrees. The event
     * log loses their events too (as with `runs.delete`); one `canvas.pruned` event records the prune.
     */
    prune(opts: {
      olderThanS?: number | undefined;
      dryRun?: boolean | undefined;
      includeRuns?: boolean | undefined;
      limit?: number | undefined;
    }): PruneResult {
      const olderThanS = opts.olderThanS ?? PRUNE_DEFAULT_OLDER_THAN_S;
      const limit = opts.limit ?? PRUNE_LIMIT_DEFAULT;
      const dryRun = opts.dryRun === true;
      const removed: RemovedNode[] = [];
      const result = store.db.transaction((afterCommit) => {
        const cutoff = new Date(Date.now() - olderThanS * 1000).toISOString();
        const found = store.canvas.pruneCandidates({
          cutoff,
          includeRuns: opts.includeRuns === true,
          limit: limit + 1,
        });
        const trees = found.slice(0, limit);
        const count = trees.reduce((sum, tree) => sum + tree.nodes, 0);
        if (!dryRun && trees.length > 0) {
          for (const tree of trees) removed.push(...removeTree(store, tree.id, tree.run_id));
          events.record('canvas.pruned', null, {
            root_ids: trees.map((t) => t.id),
            nodes: count,
            run_ids: trees.flatMap((t) => (t.run_id === null ? [] : [t.run_id])),
            older_than_s: olderThanS,
          });
          afterCommit(() => removeWorktrees(home, logger, removed));
        }
        return {
          pruned: trees.map((t) => t.id),
          count: trees.length,
          nodes: count,
          dry_run: dryRun,
          has_more: found.length > limit,
        };
      });
      return result;
    },
  };
}

export type CanvasService = ReturnType<typeof canvasService>;

// ── attention order and cursors ─────────────────────────────────────────────────────────────

/** Items sort by `since`, then kind, then the id of what they concern. */
type Key = readonly [since: string, kind: string, id: string];

function keyOf(item: AttentionItem): Key {
  return [item.since, item.kind, item.ticket_id ?? item.node_id ?? item.cron_id ?? ''];
}

function compareKeys(a: Key, b: Key): number {
  for (let i = 0; i < 3; i++) {
    if (a[i]! < b[i]!) return -1;
    if (a[i]! > b[i]!) return 1;
  }
  return 0;
}

function cursorOf(item: AttentionItem): string {
  return keyOf(item).join('|');
}

function parseCursor(cursor: string): Key {
  const parts = cursor.split('|');
  if (parts.length !== 3 || Number.isNaN(Date.parse(parts[0]!))) {
    throw new ApiError('invalid_request', 'after must be the next_cursor of the previous page', {
      field: 'after',
      received: cursor.slice(0, 64),
    });
  }
  return parts as unknown as Key;
}
