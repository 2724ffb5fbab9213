/** Matching a request's method and path against the route table. */
import type { RouteDef } from './route-def.ts';
import { routes } from './table.ts';

export type RouteMatch = { route: RouteDef; params: Record<string, string> };

type Segment = { literal: string } | { param: string };
type Compiled = { route: RouteDef; segments: Segment[] };

function compile(route: RouteDef): Compiled {
  const segments = route.path
    .split('/')
    .slice(1)
    .map(
      (s): Segment =>
        s.startsWith('{') && s.endsWith('}') ? { param: s.slice(1, -1) } : { literal: s },
    );
  return { route, segments };
}

const compiled: Compiled[] = routes.map(compile);

/**
 * Finds the route for `method` and `pathname` (no query string; no trailing-slash variants).
 * Returns the route and its decoded path parameters; `{ allowed }` when the path exists but not
 * for this method (the `Allow` header of a 405, RFC 9110 §15.5.6); `null` when no route has the
 * path (404). `HEAD` matches a `GET` route. A literal segment wins over a parameter.
 */
export function findRoute(
  method: string,
  pathname: string,
): RouteMatch | { allowed: string[] } | null {
  const parts = pathname.split('/');
  if (parts[0] !== '') return null;
  const segments = parts.slice(1);
  const wanted = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
  let best: { match: RouteMatch; literals: number } | null = null;
  const allowed = new Set<string>();
  for (const candidate of compiled) {
    const params = matchSegments(candidate.segments, segments);
    if (params === null) continue;
    allowed.add(candidate.route.method);
    if (candidate.route.method !== wanted) continue;
    const literals = candidate.segments.filter((s) => 'literal' in s).length;
    if (best === null || literals > best.literals) {
      best = { match: { route: candidate.route, params }, literals };
    }
  }
  if (best !== null) return best.match;
  if (allowed.size === 0) return null;
  if (allowed.has('GET')) allowed.add('HEAD');
  return { allowed: [...allowed].sort() };
}

function matchSegments(pattern: Segment[], actual: string[]): Record<string, string> | null {
  if (pattern.length !== actual.length) return null;
  const params: Record<string, string> = {};
  for (const [i, seg] of pattern.entries()) {
    const value = actual[i] ?? '';
    if ('literal' in seg) {
      if (seg.literal !== value) return null;
      continue;
    }
    if (value === '') return null;
    try {
      params[seg.param] = decodeURIComponent(value);
    } catch {
      return null; // malformed percent-encoding names no resource
    }
  }
  return params;
}
