import { requireScope } from '../access/scopes.ts';
import type { Principal } from '../ports.ts';

/**
 * Writing takes `svc:act` (checked before the node is looked up, as a scope-gated route does),
 * except for the owner and a node token on its own node: a broker running inside a pane
 * registers itself whatever its node's scopes.
 */
export function mayWrite(nodeId: string, principal: Principal): void {
  if (principal.kind === 'node' && principal.nodeId === nodeId) return;
  requireScope(principal, 'svc:act', "setting or clearing a node's pane");
}
