/**
 * The canvas's roster (docs/api-v1.md "Canvas"): the live agents with their brokers, seen by the
 * nodes resource's read rule (`tree-read`).
 */
import { LIVE_STATES, type rosterEntrySchema } from '@svc/protocol';
import type { z } from 'zod';
import type { NodeService } from '../nodes/service.ts';
import type { NodeRow } from '../nodes/store/nodes.ts';
import { toNode } from '../nodes/store/to-node.ts';
import type { Principal } from '../ports.ts';
import type { BrokerRow } from '../store/brokers.ts';
import type { Store } from '../store/index.ts';
import type { CanvasStore } from './store.ts';

export type RosterEntry = z.output<typeof rosterEntrySchema>;
type LiveState = (typeof LIVE_STATES)[number];

/** Live nodes, newest first, `limit` of them after `before`. */
export function roster(
  deps: {
    store: Pick<Store, 'brokers' | 'canvas' | 'nodes'>;
    nodes: Pick<NodeService, 'readVisibility'>;
  },
  principal: Principal,
  q: { states?: readonly LiveState[] | undefined; before?: string | undefined; limit: number },
): RosterEntry[] {
  const { store, nodes } = deps;
  const vis = nodes.readVisibility(principal);
  const live = new Map<string, BrokerRow>();
  // Oldest first, so a node's newest broker wins.
  for (const broker of store.brokers.live()) live.set(broker.node_id, broker);
  return store.nodes
    .list(vis, { states: q.states ?? LIVE_STATES, before: q.before, limit: q.limit })
    .map((row) => rosterEntry(store.canvas, row, live.get(row.id)));
}

function rosterEntry(
  canvas: CanvasStore,
  row: NodeRow,
  broker: BrokerRow | undefined,
): RosterEntry {
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
    last_turn_at: canvas.lastTurnAt(node.id),
  };
}
