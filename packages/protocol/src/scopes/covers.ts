/**
 * `covers(held, wanted)`: does holding `held` grant `wanted`? The relation is a preorder
 * (reflexive, transitive) and never widens across kinds or targets:
 * - `rw` ⊇ `read` for the same owner and target;
 * - `svc:memory:manage:user` ⊇ every `svc:memory:*:user[:path]`;
 * - a directory or document path covers its sub-paths by whole segments;
 * - an app scope without `:profile:` covers the same scope with any profile.
 *
 * `svc:act` covers nothing but itself: the spec's "act requires llm" is a rule on a whole list
 * (checked by `parseScopeList`), not an implication, so holding `svc:act` never grants `svc:llm`.
 */

import { type ParsedScope, type Scope, tryParseScope } from './parse.ts';
import { isWithin } from './paths.ts';

export function covers(held: Scope, wanted: Scope): boolean {
  const h = parsedOrNull(held);
  const w = parsedOrNull(wanted);
  return h !== null && w !== null && parsedCovers(h, w);
}

/** `held === null` is the owner, who holds everything. */
export function listCovers(held: readonly Scope[] | null, wanted: Scope): boolean {
  return held === null || held.some((h) => covers(h, wanted));
}

/** The first requested scope the ceiling does not cover, or `null` when all are inside it. */
export function ceilingViolation(
  ceiling: readonly Scope[] | null,
  requested: readonly Scope[],
): Scope | null {
  return requested.find((r) => !listCovers(ceiling, r)) ?? null;
}

export function parsedCovers(h: ParsedScope, w: ParsedScope): boolean {
  switch (h.kind) {
    case 'llm':
    case 'act':
    case 'schedule':
    case 'files-share':
      return w.kind === h.kind;
    case 'conversations':
    case 'objects':
      return w.kind === h.kind && w.appId === h.appId;
    case 'provider':
      return w.kind === 'provider' && w.provider === h.provider && w.group === h.group;
    case 'files':
      return (
        w.kind === 'files' &&
        w.owner === h.owner &&
        (h.owner === 'user' || (w.owner === 'app' && w.appId === h.appId)) &&
        accessCovers(h.access, w.access) &&
        isWithin(h.dir, w.dir)
      );
    case 'memory':
      if (w.kind !== 'memory' || w.owner !== h.owner) return false;
      if (h.owner === 'user' && w.owner === 'user') {
        if (h.access === 'manage') return true;
        return (
          w.access !== 'manage' &&
          accessCovers(h.access, w.access) &&
          (h.path === undefined || (w.path !== undefined && isWithin(h.path, w.path)))
        );
      }
      return (
        h.owner === 'app' &&
        w.owner === 'app' &&
        w.appId === h.appId &&
        accessCovers(h.access, w.access) &&
        (h.profile === undefined || h.profile === w.profile)
      );
  }
}

function accessCovers(held: 'read' | 'rw', wanted: 'read' | 'rw'): boolean {
  return held === 'rw' || wanted === 'read';
}

// Guards and ceilings check the same few strings on every request; parsing once is enough.
// Bounded: cleared when full, so hostile input cannot grow it without limit.
const CACHE_LIMIT = 1024;
const cache = new Map<string, ParsedScope | null>();

function parsedOrNull(s: Scope): ParsedScope | null {
  let hit = cache.get(s);
  if (hit === undefined) {
    const r = tryParseScope(s);
    hit = r.ok ? r.scope : null;
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(s, hit);
  }
  return hit;
}
