/**
 * The canvas's attention list (docs/api-v1.md "Canvas"): what needs the person, newest first,
 * from three sources: open human tickets, nodes failed or stuck, crons whose last fire failed.
 * It lists what the caller is to act on, so it is seen by the visibility writes use (the nodes
 * resource's `tree` rule), since another app's nodes read through `svc:conversations:read:app`
 * cannot be acted on. Crons are seen through the crons resource's own rule.
 */
import { type ATTENTION_KINDS, type attentionItemSchema, OPEN_TICKET_STATES } from '@svc/protocol';
import type { z } from 'zod';
import type { CronService } from '../crons/service.ts';
import { cronSight } from '../crons/visibility.ts';
import { ApiError } from '../errors.ts';
import type { NodeService } from '../nodes/service.ts';
import type { NodeRow } from '../nodes/store/nodes.ts';
import { toNode } from '../nodes/store/to-node.ts';
import type { Principal } from '../ports.ts';
import type { Store } from '../store/index.ts';

export type AttentionKind = (typeof ATTENTION_KINDS)[number];
export type AttentionItem = z.output<typeof attentionItemSchema>;

export interface AttentionDeps {
  store: Pick<Store, 'human' | 'nodes' | 'canvas'>;
  nodes: Pick<NodeService, 'visibility'>;
  crons: Pick<CronService, 'list'>;
}

/** Each source of attention items is read up to this many rows: the list stays bounded. */
const SOURCE_MAX = 1000;
/** Pages of open tickets read for one caller at most (50,000 tickets): a bound, not an expectation. */
const TICKET_PAGES = 50;
const CRON_PAGE = 200;

/** A page of the items the caller may see, newest first; the cursor is an item's sort key. */
export function attention(
  deps: AttentionDeps,
  principal: Principal,
  q: {
    kinds?: readonly AttentionKind[] | undefined;
    after?: string | undefined;
    limit: number;
  },
) {
  const after = q.after === undefined ? undefined : parseCursor(q.after);
  const wanted = q.kinds === undefined ? null : new Set(q.kinds);
  const all = attentionItems(deps, principal).filter(
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
}

/** How many items the caller may see, in all and by kind. */
export function attentionCounts(deps: AttentionDeps, principal: Principal) {
  const byKind: Record<AttentionKind, number> = {
    ticket: 0,
    node_failed: 0,
    node_waiting_human: 0,
    node_budget: 0,
    cron_failed: 0,
  };
  const items = attentionItems(deps, principal);
  for (const item of items) byKind[item.kind]++;
  return { total: items.length, by_kind: byKind };
}

/**
 * Open tickets, newest first, page after page: the caller filters them by what it may see, so
 * one page of everyone's could hold none of an app's. Bounded: at most `TICKET_PAGES` pages.
 */
function* openTickets(store: AttentionDeps['store']) {
  let before: string | undefined;
  for (let page = 0; page < TICKET_PAGES; page++) {
    const rows = store.human.tickets({ states: OPEN_TICKET_STATES, before, limit: SOURCE_MAX });
    yield* rows;
    if (rows.length < SOURCE_MAX) return;
    before = rows.at(-1)!.id;
  }
}

function ticketItems({ store, nodes }: AttentionDeps, principal: Principal): AttentionItem[] {
  const vis = nodes.visibility(principal);
  const items: AttentionItem[] = [];
  for (const ticket of openTickets(store)) {
    if (items.length >= SOURCE_MAX) break;
    const request = store.human.request(ticket.request_id);
    if (request === undefined) continue;
    // The asking node's visibility decides; a request no node asked is its app's (or the
    // owner's, who sees every one).
    const sees =
      principal.kind === 'owner' ||
      (request.node_id !== null && store.nodes.visible(request.node_id, vis) !== undefined) ||
      (request.node_id === null && principal.kind === 'app' && request.app_id === principal.appId);
    if (!sees) continue;
    const asker =
      request.node_id !== null
        ? `node ${request.node_id}`
        : request.app_id !== null
          ? `app ${request.app_id}`
          : 'the owner';
    const progress = ticket.progress_note === null ? '' : ` (in progress: ${ticket.progress_note})`;
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

function nodeItems({ store, nodes }: AttentionDeps, principal: Principal): AttentionItem[] {
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
    const waiting = row.waiting_on;
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

function cronItems({ store, crons }: AttentionDeps, principal: Principal): AttentionItem[] {
  const items: AttentionItem[] = [];
  let before: string | undefined;
  const sight = cronSight(principal);
  for (let read = 0; read < SOURCE_MAX; read += CRON_PAGE) {
    const page = crons.list(sight, { before, limit: CRON_PAGE });
    for (const cron of page) {
      const fired = store.canvas.lastCronFire(cron.id);
      const error = fired?.error ?? null;
      if (fired === undefined || error === null) continue;
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
function attentionItems(deps: AttentionDeps, principal: Principal): AttentionItem[] {
  return [
    ...ticketItems(deps, principal),
    ...nodeItems(deps, principal),
    ...cronItems(deps, principal),
  ].sort((a, b) => compareKeys(keyOf(b), keyOf(a)));
}

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
