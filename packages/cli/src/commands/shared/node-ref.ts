/** What every `svc node` handler shares: the id check, the printed node, and the node as a subject. */
import type { Node, NodeWaitResult } from '@svc/client';
import type { Context } from '../../context.ts';
import { renderNode } from '../../output/node-view.ts';
import { parseId } from '../../parse/id.ts';
import { printSubject, type Subject } from './subject.ts';

/** A node id, else a usage error naming `what` (default: the `<id>` argument), before any request. */
export function nodeId(value: string, what?: string): string {
  return parseId('node', value, what);
}

/** The node's fields for a person; the Node itself under `--json`. */
export function printNode(ctx: Context, n: Node): number {
  return printSubject(ctx, NODE, n);
}

/** A node over the `nodes` routes: its own events (its subtree's on request), its own outcome. */
export const NODE: Subject<Node, NodeWaitResult> = {
  noun: 'node',
  stream: (client, id, subtree, options) => client.nodes.stream(id, { subtree }, options),
  isOutcome: (id) => (e) => e.kind === 'node.outcome' && e.subject_id === id,
  rootNode: async (_client, id) => id,
  retrieve: (client, id, signal) => client.nodes.retrieve(id, signal && { signal }),
  waitOnce: (client, id, timeout_s, signal) =>
    client.nodes.waitForOutcome(id, { timeout_s }, { signal }),
  notFinal: (node) => ({ final: false, node }),
  subjectOf: (answer) => answer.node,
  stop: (client, verb, id, params) => client.nodes[verb](id, params),
  render: renderNode,
};
