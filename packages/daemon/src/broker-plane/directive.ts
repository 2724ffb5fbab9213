import type { Directive } from '@svc/protocol';
import type { NodeRow } from '../nodes/store/nodes.ts';
import { waitUntil } from '../nodes/wait-until.ts';
import type { Store } from '../store/index.ts';
import { nodeRow, type PlaneDeps } from './deps.ts';

/** What the node's state asks of its broker, with the jobs somebody asked to stop. */
export function directiveOf(store: Pick<Store, 'jobs'>, node: NodeRow): Directive {
  const cancel_jobs = store.jobs.toCancel(node.id);
  if (node.state === 'running') return { action: 'continue', reason: null, cancel_jobs };
  const waiting = node.waiting_on;
  const action =
    node.state === 'waiting'
      ? waiting?.for === 'budget'
        ? 'park'
        : 'interrupt'
      : node.state === 'queued'
        ? 'interrupt' // relaunched: this broker makes way for a fresh one
        : 'cancel';
  const reason = node.state_reason ?? `the node is ${node.state}`;
  return { action, reason, cancel_jobs };
}

/**
 * `broker.directive.get`: long-polls up to `waitS` while the answer would be a bare `continue`
 * (no job to cancel either).
 */
export async function awaitDirective(
  { store, events }: Pick<PlaneDeps, 'store' | 'events'>,
  id: string,
  waitS: number,
  signal: AbortSignal,
): Promise<Directive> {
  const news = () => {
    const d = directiveOf(store, nodeRow(store, id));
    return d.action === 'continue' && d.cancel_jobs.length === 0 ? null : d;
  };
  return (
    (await waitUntil(events, news, waitS * 1000, signal)) ?? directiveOf(store, nodeRow(store, id))
  );
}
