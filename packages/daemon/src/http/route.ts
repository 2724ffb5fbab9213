import { type RouteId, routeById, type routes } from '@svc/protocol';
import type { Context, Hono } from 'hono';
import type { z } from 'zod';
import type { AppEnv } from './env.ts';

type RouteOf<I extends RouteId> = Extract<(typeof routes)[number], { id: I }>;
type Part<R, K extends string> =
  R extends Record<K, infer S extends z.ZodType> ? z.output<S> : undefined;

/** A route's params, query and body as its zod schemas output them (validated by `requestPath`). */
export interface InputOf<I extends RouteId> {
  params: Part<RouteOf<I>, 'params'>;
  query: Part<RouteOf<I>, 'query'>;
  body: Part<RouteOf<I>, 'body'>;
}

export type RouteHandler<I extends RouteId> = (
  c: Context<AppEnv>,
  input: InputOf<I>,
) => Response | Promise<Response>;

/**
 * Registers the handler of one route of the protocol's table, at the table's method and path
 * (`{id}` → Hono's `:id`). Auth and validation already ran in `requestPath`, which calls the handler through `next`.
 */
export function mount<I extends RouteId>(app: Hono<AppEnv>, id: I, handler: RouteHandler<I>): void {
  const route = routeById(id);
  const path = route.path.replace(/\{(\w+)\}/g, ':$1');
  app.on(route.method, path, (c) => handler(c, c.get('input') as unknown as InputOf<I>));
}
