/** Matching a request's method and path against the route table. */
import type { RouteDef } from './route-def.ts';
import { routes } from './table.ts';

export type RouteMatch = { route: RouteDef; params: Record<string, string> };

type Segment = { literal: string } | { param: string };
type Compiled = { route: RouteDef; segments: Segment[]; literals: number };

function compile(route: RouteDef): Compiled {
  const segments = route.path
    .split('/')
    .slice(1)
    .map(
      (s): Segment =>
        s.startsWith('{') && s.endsWith('}') ? { param: s.slice(1, -1) } : { literal: s },
    );
  return { route, segments, literals: segments.filter((s) => 'literal' in s).length };
}

const compiled: Compiled[] = routes.map(compile);

/**
 * Finds the route for `method` and `pathname` (no query string; no trailing-slash variants).
 * Returns the route and its decoded path parameters; `{ allowed }` when the path exists but not
 * for this method (the `Allow` header of a 405, RFC 9110 §15.5.6); `null` when no route has the
 * path (404). `HEAD` matches a `GET` route.
 *
 * A path is the most literal of the templates it matches: `/v1/runs/all` is `GET /v1/runs/all`'s
 * path, not a run id of `/v1/runs/{id}`, whatever the method. So `DELETE /v1/runs/all` is a 405
 * whose `Allow` is `GET, HEAD`, not a DELETE of a run named `all` (no id schema takes a literal
 * segment of the table; routes.test.ts checks it).
 */
export function findRoute(
  method: string,
  pathname: string,
): RouteMatch | { allowed: string[] } | null {
  const parts = pathname.split('/');
  if (parts[0] !== '') return null;
  const segments = parts.slice(1);
  const wanted = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
  let best: RouteMatch | null = null;
  let literals = -1;
  const allowed = new Set<string>();
  for (const candidate of compiled) {
    if (candidate.literals < literals) continue;
    const params = matchSegments(candidate.segments, segments);
    if (params === null) continue;
    if (candidate.literals > literals) {
      // A more literal template: what the less literal ones matched is not this path's.
      literals = candidate.literals;
      best = null;
      allowed.clear();
    }
    allowed.add(candidate.route.method);
    if (candidate.route.method === wanted) best = { route: candidate.route, params };
  }
  if (best !== null) return best;
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
