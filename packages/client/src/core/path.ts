import { assertId, assertName, type IdKind } from '@svc/protocol';

const checked: unique symbol = Symbol('svc.checkedPathParam');

/** A path segment that passed its identifier check; only `id()` and `name()` make one. */
export interface PathParam {
  readonly [checked]: string;
}

/**
 * Checks a prefixed id (`nd_…`, `cron_…`) for a path; a malformed one is a `TypeError` thrown
 * before any request, naming `argName`.
 */
export function id(kind: IdKind, value: unknown, argName: string): PathParam {
  assertId(kind, value, argName);
  return { [checked]: value };
}

/** Checks a provider, profile or app name for a path, like `id()`. */
export function name(
  kind: 'provider' | 'profile' | 'app',
  value: unknown,
  argName: string,
): PathParam {
  assertName(kind, value, argName);
  return { [checked]: value };
}

/**
 * Builds a request path: path`/v1/nodes/${id('node', nodeId, 'nodeId')}/jobs`. Every
 * interpolation must come from `id()` or `name()`, so no resource method can put an unchecked value
 * in a path; each one is percent-encoded as a single segment.
 */
export function path(strings: TemplateStringsArray, ...params: PathParam[]): string {
  let out = strings[0]!;
  for (const [i, param] of params.entries()) {
    if (typeof param !== 'object' || param === null || !(checked in param)) {
      throw new TypeError('path segments must be checked with id() or name()');
    }
    out += encodeURIComponent(param[checked]) + strings[i + 1];
  }
  return out;
}
