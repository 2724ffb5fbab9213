/**
 * A caller's scope ceiling, and what it bounds besides making a node: giving an existing node new
 * work or mail. SPEC: "A token cannot create a node with scopes outside its own ceiling".
 */
import { type Ceiling, ceilingViolation } from '@svc/protocol';
import { ApiError } from '../errors.ts';
import type { Principal } from '../ports.ts';
import type { Store } from '../store/index.ts';
import type { NodeRow } from './store/nodes.ts';

/**
 * The scope ceiling a caller creates under (and, starting a run, the run's grant): its token's
 * list; `null` (everything) for the owner and for a node of the owner that was given no list,
 * whose token holds `null` too. An app token without a list (there should be none) gets nothing.
 */
export function scopeCeiling(principal: Principal): Ceiling {
  if (principal.kind === 'owner') return null;
  return principal.kind === 'node' ? principal.scopes : (principal.scopes ?? []);
}

/**
 * Mail steers the node that reads it, so an app token's mail comes under the rule below too. A
 * node's mail to its tree (a child reporting to its parent) is the tree's own coordination.
 */
export function requireMayMail(row: NodeRow, principal: Principal): void {
  if (principal.kind === 'app') requireWithinCeiling(row, principal);
}

/**
 * Giving a node new work (a new task, or orders with its revival) is as good as making it, so it
 * takes what making it takes (SPEC: "A token cannot create a node with scopes outside its own
 * ceiling"): else a narrower token of the same app would steer a node that holds more than it.
 */
export function requireWithinCeiling(row: NodeRow, principal: Principal): void {
  const ceiling = scopeCeiling(principal);
  if (ceiling === null) return;
  const held = row.scopes;
  const outside = held === null ? 'scopes' : ceilingViolation(ceiling, held);
  if (outside === null) return;
  const what = held === null ? 'every scope' : `'${outside}'`;
  throw new ApiError(
    'scope_missing',
    `node ${row.id} holds ${what}, outside this token's scopes; a token gives new work only to a node it could have made`,
    { field: outside, received: principal.scopes ?? [] },
  );
}

/** The grant every node of run `runId`'s tree stays inside (`null`: no run, or the owner's). */
export function grantOf(store: Store, runId: string | null | undefined): Ceiling {
  return runId == null ? null : (store.runs.get(runId)?.grant_scopes ?? null);
}
