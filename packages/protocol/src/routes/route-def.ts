import type { z } from 'zod';
import type { ErrorCode } from '../errors.ts';
import type { Scope } from '../scopes/parse.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Who may call a route:
 * - `public`: no bearer;
 * - `token`: any valid bearer (owner, app or node);
 * - `owner`: the owner token only (an app token gets 403 `forbidden`);
 * - `scope`: the owner, or a token whose list covers `scope` (else 403 `scope_missing`);
 * - `node`: a node token, for its own node only (the broker control plane);
 * - `publish`: a custom object's publish token, for the object in the path only (a publish token
 *   answers 401 on every other route), or any bearer token, which the handler then checks.
 */
export type RouteAuth =
  | { kind: 'public' }
  | { kind: 'token' }
  | { kind: 'owner' }
  | { kind: 'scope'; scope: Scope }
  | { kind: 'node' }
  | { kind: 'publish' };

/**
 * Whose rows a route shows. A row outside the caller's sight answers 404, as if it did not exist,
 * and a list leaves it out. The daemon turns the rule and the caller into one sight per request
 * (`c.sight`), so the rule of a route is changed here and nowhere else.
 * - `own-app`: the owner every row; an app token its app's rows; a node token none.
 * - `own-app-or-node`: `own-app`, and a node token the rows of its own node.
 * - `with-owner`: the owner every row; an app, and a node of its runs, the owner's rows and its app's.
 * - `tree`: the owner every node; an app the trees its app made; a node token its own tree.
 * - `tree-read`: `tree`, and an app token also the trees of each app it may read
 *   (`svc:conversations:read:app:<id>`).
 * - `objects-read`: the owner every object; an app its app's and those of each app it may read
 *   (`svc:objects:read:app:<id>`); a node token those of its app and of the apps it may read.
 */
export const VISIBILITIES = [
  'own-app',
  'own-app-or-node',
  'with-owner',
  'tree',
  'tree-read',
  'objects-read',
] as const;

export type Visibility = (typeof VISIBILITIES)[number];

/**
 * A list route's page: the request path reads `?limit` (default 50) and `?after`, asks the
 * handler for one row more than the limit, and answers `{ data, has_more, next_cursor }`, the
 * cursor being the field `cursor` of the page's last row.
 */
export interface RoutePage {
  /**
   * `null`: the cursor is a position the handler keeps itself, no field of an item (an offset
   * into search hits, a turn index, a compound key over merged sources, or one page of all).
   */
  cursor: string | null;
}

export interface RouteDef {
  /** Stable operation id, `<resource>.<action>`; also the OpenAPI `operationId`. */
  id: string;
  method: HttpMethod;
  /** Path template with `{name}` parameters, e.g. `/v1/tokens/{id}`. */
  path: string;
  auth: RouteAuth;
  summary: string;
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** The success answer; for a stream, one event's `data:`. */
  response: z.ZodType;
  stream?: 'sse';
  /** A body taken as raw bytes of this media type, not JSON (such a route has no `body` schema). */
  consumes?: string;
  /** The media type of a success answer that is not JSON (e.g. a file's bytes). */
  produces?: string;
  /** When the route answers 204 with no body, why (a stream with nothing left to send). */
  noContent?: string;
  /** Whose rows it shows; absent on routes that show no one's rows (or only the owner's). */
  visibility?: Visibility;
  /** A list route: its pagination, done by the request path. */
  page?: RoutePage;
  /** Codes the handler answers beyond those the route's auth and parts imply (OpenAPI lists them). */
  errors?: readonly ErrorCode[];
}
