/** What the run operations work with: a run is a view over the node tree it owns. */

import type { EventLog } from '../events/log.ts';
import type { NodeService } from '../nodes/service.ts';
import type { RemovedNode } from '../nodes/tree-removal.ts';
import type { Store } from '../store/index.ts';

export interface RunDeps {
  store: Store;
  events: EventLog;
  /** The node operations a run's are made of (cancel a run: cancel its root). */
  nodes: NodeService;
  /**
   * Called after a `runs.delete` commits with the removed nodes (the daemon removes worktrees);
   * settles once they are gone.
   */
  removed(nodes: readonly RemovedNode[]): Promise<void>;
}
