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
  /** Codes the handler answers beyond those the route's auth and parts imply (OpenAPI lists them). */
  errors?: readonly ErrorCode[];
}
