import { close, news } from './close.ts';
import { type HumanDeps, OWNER } from './deps.ts';
import { ticketOf } from './rows.ts';

/**
 * A node that ends (done, failed, cancelled) can read no answer: its open requests leave the
 * inbox with it, in the same transaction, so the person is never asked for nobody. The node
 * hears of it by mail it reads only if it is revived (or recycled): without it, a revived node
 * would resume still waiting for an answer that can never come.
 */
export function cancelWithNode(deps: HumanDeps): void {
  const { store, nodes } = deps;
  nodes.onFinal((node, afterCommit) => {
    for (const id of store.human.openOfNode(node.id)) {
      const request = store.human.request(id)!;
      const reason = `node ${node.id} is ${node.state}`;
      close(deps, request, 'cancelled', 'cancelled', { reason, from: null });
      nodes.leaveMail(node, OWNER, news(request, ticketOf(store, request), reason));
      deps.changed(afterCommit);
    }
  });
}
