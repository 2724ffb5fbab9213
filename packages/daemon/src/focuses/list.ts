import type { Principal } from '../ports.ts';
import type { FocusDeps } from './deps.ts';
import type { Focus, FocusFilter } from './store.ts';

/** The focuses of the nodes the caller sees, newest node first. */
export function listFocuses(
  { store, nodes }: Pick<FocusDeps, 'store' | 'nodes'>,
  principal: Principal,
  filter: FocusFilter,
): Focus[] {
  return store.focuses.list(nodes.visibility(principal), filter);
}
