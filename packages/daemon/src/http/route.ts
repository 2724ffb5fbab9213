import type { RouteId, routes } from '@svc/protocol';
import type { z } from 'zod';
import type { Call, Reply } from './call.ts';

type RouteOf<I extends RouteId> = Extract<(typeof routes)[number], { id: I }>;
type Part<R, K extends string> =
  R extends Record<K, infer S extends z.ZodType> ? z.output<S> : undefined;

/** A route's params, query and body as its zod schemas output them (validated by the request path). */
export interface InputOf<I extends RouteId> {
  params: Part<RouteOf<I>, 'params'>;
  query: Part<RouteOf<I>, 'query'>;
  body: Part<RouteOf<I>, 'body'>;
}

export type RouteHandler<I extends RouteId> = (
  c: Call,
  input: InputOf<I>,
) => Reply | Promise<Reply>;

/** The handlers this daemon serves, by the id of their route in the protocol's table. */
export type Routes = Map<RouteId, RouteHandler<RouteId>>;

/**
 * Registers the handler of one route of the protocol's table. Method, path, auth and validation
 * come from the table; the request path runs them before it calls the handler.
 */
export function mount<I extends RouteId>(app: Routes, id: I, handler: RouteHandler<I>): void {
  if (app.has(id)) throw new Error(`route ${id} is mounted twice`);
  app.set(id, handler as unknown as RouteHandler<RouteId>);
}
