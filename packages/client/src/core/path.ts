import { assertId, assertName, type IdKind, type RouteId, type routes } from '@svc/protocol';
// The paths alone, not the table: the table's schemas would load zod for every call.
import { routePaths } from '@svc/protocol/route-paths';

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

type RouteOf<Id extends RouteId> = Extract<(typeof routes)[number], { id: Id }>;
type ParamNames<Path extends string> = Path extends `${string}{${infer Name}}${infer Rest}`
  ? Name | ParamNames<Rest>
  : never;
/** The checked segments a route's path template asks for, by the template's names. */
export type PathParams<Id extends RouteId> = Record<ParamNames<RouteOf<Id>['path']>, PathParam>;

/**
 * The path of the table's route `routeId` with its `{name}` parameters filled, each from
 * `id()` or `name()` and percent-encoded as a single segment: `pathOf('crons.pause', { id:
 * id('cron', cronId, 'cronId') })`. The client restates no path the protocol's table holds.
 */
export function pathOf<Id extends RouteId>(
  routeId: Id,
  ...[params]: ParamNames<RouteOf<Id>['path']> extends never ? [] : [PathParams<Id>]
): string {
  const given = (params ?? {}) as Record<string, PathParam | undefined>;
  const template = routePaths[routeId] as string | undefined;
  if (template === undefined) throw new TypeError(`unknown route id '${routeId}'`);
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const param = given[name];
    if (typeof param !== 'object' || param === null || !(checked in param)) {
      throw new TypeError(
        `path parameter '${name}' of ${routeId} must be checked with id() or name()`,
      );
    }
    return encodeURIComponent(param[checked]);
  });
}
