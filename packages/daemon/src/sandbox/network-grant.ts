/**
 * Who may give a node which network (docs/security.md, "The sandbox"): the person (the owner's
 * token) any; an app none but `none` (networks are the person's to hand out, as a profile's
 * are); a node, for a node it makes, at most its own: `none` ⊂ a list of domains ⊂ `host`, and
 * a list within a list when each of its domains is one the other allows. A profile's network is
 * held to the same ceiling: naming a profile gives a node no more than naming its network would.
 */
import type { NetworkPolicy } from '@svc/protocol';
import { ApiError } from '../errors.ts';
import { hostAllowed } from './proxy.ts';

/** Whether `wanted` reaches nothing `held` does not. */
export function networkWithin(wanted: NetworkPolicy, held: NetworkPolicy): boolean {
  if (wanted === 'none' || held === 'host') return true;
  if (held === 'none' || wanted === 'host') return false;
  return wanted.allow.every(
    (p) => held.allow.includes(p) || hostAllowed(held.allow, p.replace(/^\*\./, 'x.')),
  );
}

/**
 * The network a create may give, or 403 `forbidden` naming `network`. `creator`: `null` for the
 * owner (every network), else the most it may give.
 */
export function grantNetwork(
  wanted: NetworkPolicy | undefined,
  creator: NetworkPolicy | null,
): NetworkPolicy | undefined {
  if (wanted === undefined || creator === null || networkWithin(wanted, creator)) return wanted;
  throw new ApiError(
    'forbidden',
    `network ${JSON.stringify(wanted)} is more than this creator may give (${JSON.stringify(creator)}): only the owner hands out a network; a node gives at most its own`,
    { field: 'network' },
  );
}

/**
 * What a node whose create names no network keeps on its row from its profile's `profile`
 * (`null`: the daemon's default). `null` follows the profile live: the owner's nodes (`creator`
 * `null`), and a profile with none, whose default the person set for every confined command.
 * Any other creator gets a snapshot, cut to `creator` where it would reach more (silently: the
 * profile's prompt and tools are still the creator's to use), so a later raise of the profile
 * does not reach a node already made.
 */
export function profileNetworkWithin(
  profile: NetworkPolicy | null,
  creator: NetworkPolicy | null,
): NetworkPolicy | null {
  if (creator === null || profile === null) return null;
  return networkWithin(profile, creator) ? profile : creator;
}
