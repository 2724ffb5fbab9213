import type { NodeService } from '../nodes/service.ts';
import type { Store } from '../store/index.ts';

/**
 * What the focus operations use. A focus is seen as its node is, so the nodes resource's own
 * rule (`visibleRow`, `visibility`: the write rule, `tree`) decides.
 */
export interface FocusDeps {
  store: Pick<Store, 'db' | 'focuses'>;
  nodes: Pick<NodeService, 'visibility' | 'visibleRow'>;
  now: () => Date;
}
