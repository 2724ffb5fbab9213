/**
 * A profile changed (its network, its command env, an env value): each node running on it gets
 * its sandbox plan made again, as its next launch would make it, and its host closes the old
 * sandbox (`../broker/node-loop.ts`, `reconfine`). So the person's narrowing of a profile reaches
 * the nodes that run on it now, not only their next launch (docs/security.md, "Network.").
 */
import type { SandboxService } from '../sandbox/service.ts';
import type { Store } from '../store/index.ts';
import type { Supervisor } from './supervisor.ts';

export interface ReconfineDeps {
  store: Pick<Store, 'nodes'>;
  sandbox: Pick<SandboxService, 'forNode'>;
  supervisor: Pick<Supervisor, 'brokers' | 'reconfine'>;
}

export function reconfineProfile(deps: ReconfineDeps, name: string): void {
  for (const { node_id } of deps.supervisor.brokers()) {
    const row = deps.store.nodes.get(node_id);
    if (row?.profile === name) deps.supervisor.reconfine(node_id, deps.sandbox.forNode(row));
  }
}
