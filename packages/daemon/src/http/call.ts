import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { RouteDef } from '@svc/protocol';
import { type Sight, sightOf } from '../access/visibility.ts';
import type { Logger } from '../lifecycle/logger.ts';
import type { Principal } from '../ports.ts';
import { DEFAULT_LIMIT, page } from './page.ts';
import type { SseBody } from './sse.ts';

/** An answer's body: JSON text (or other text), bytes (a viewer asset), a stream, SSE, or none. */
type ReplyBody = string | Uint8Array | ReadableStream<Uint8Array> | SseBody | null;

/** A request's validated parts, read before its handler runs. */
export interface RouteInput {
  params: unknown;
  query: unknown;
  body: unknown;
  /** The body bytes as received (the Idempotency-Key fingerprint hashes them). */
  raw: Uint8Array;
}

/** What a handler answers: written to the socket by `writeReply`. */
export interface Reply {
  status: number;
  body: ReplyBody;
  headers: Record<string, string>;
}

const NO_INPUT: RouteInput = Object.freeze({
  params: undefined,
  query: undefined,
  body: undefined,
  raw: new Uint8Array(),
});

/**
 * One request as the daemon's handlers see it: what arrived (method, path, headers), who sent it
 * (`principal`, set by the auth step) and what it holds (`input`, validated), plus `json` and
 * `body` to answer. Read from node's `IncomingMessage` directly: a Fetch `Request` and a router
 * per request cost more than the rest of `GET /v1/status` (docs/api-v1.md, "How the daemon
 * serves HTTP").
 */
export class Call {
  readonly method: string;
  /** The path, dot segments resolved and percent-decoded as `decodeURI` does. */
  readonly path: string;
  /** The query string as received, without its `?` (empty when there is none). */
  readonly query: string;
  readonly headers: IncomingHttpHeaders;
  readonly requestId: string;
  readonly log: Logger;
  route: RouteDef | undefined = undefined;
  principal: Principal | null = null;
  /** The viewer session secret the request was authenticated by (its cookie), if any. */
  viewerSession: string | null = null;
  input: RouteInput = NO_INPUT;
  /**
   * The Idempotency-Key the request runs under once claimed, with what an earlier life of the
   * daemon made under it (`madeOnce`); null without a key.
   */
  keyClaim: { holder: string; key: string; made: string | null } | null = null;
  /** A node's tree root (`null` when gone), for a node token's sight of a `tree` route. */
  rootOf: (nodeId: string) => string | null = () => null;
  readonly #res: ServerResponse;
  #abort: AbortController | undefined;
  #sight: Sight | undefined;

  constructor(
    req: { method: string; path: string; query: string; headers: IncomingHttpHeaders },
    requestId: string,
    log: Logger,
    res: ServerResponse,
  ) {
    this.method = req.method;
    this.path = req.path;
    this.query = req.query;
    this.headers = req.headers;
    this.requestId = requestId;
    this.log = log;
    this.#res = res;
  }

  /** A request header by name (any case); a repeated one joined with `, ` (RFC 9110 §5.3). */
  header(name: string): string | undefined {
    const value = this.headers[name.toLowerCase()];
    return Array.isArray(value) ? value.join(', ') : value;
  }

  /**
   * Aborted when the client goes away before the answer is complete: a long poll, a stream or a
   * model call stops working for nobody. Made on first use, so most requests never pay for it.
   */
  get signal(): AbortSignal {
    if (this.#abort === undefined) {
      const controller = new AbortController();
      this.#abort = controller;
      const res = this.#res;
      const gone = () => {
        if (!res.writableFinished) controller.abort();
      };
      if (res.closed) gone();
      else res.once('close', gone);
    }
    return this.#abort.signal;
  }

  /**
   * What the caller sees under its route's rule (`RouteDef.visibility`), made once per request.
   * A route that declares no rule has no sight: asking for one is a mistake of the daemon's.
   */
  sight(): Sight {
    if (this.#sight !== undefined) return this.#sight;
    const rule = this.route?.visibility;
    if (rule === undefined || this.principal === null) {
      throw new Error(`route ${this.route?.id ?? this.path} declares no visibility`);
    }
    this.#sight = sightOf(rule, this.principal, this.rootOf);
    return this.#sight;
  }

  /**
   * A list route's page (`RouteDef.page`): `rows(limit, after)` reads up to `limit` rows after the
   * `after` cursor (one more than `?limit` asks, so `has_more` needs no count); the answer is
   * `{ data, has_more, next_cursor }`, the cursor being the declared field of the last row shown.
   */
  page<T extends object>(rows: (limit: number, after: string | undefined) => T[]): Reply {
    const cursor = this.route?.page?.cursor;
    if (cursor === undefined || cursor === null) {
      throw new Error(`route ${this.route?.id ?? this.path} declares no page by an item's field`);
    }
    const query = this.input.query as { limit?: number; after?: string } | undefined;
    const limit = query?.limit ?? DEFAULT_LIMIT;
    return this.json(
      page(rows(limit + 1, query?.after), limit, (row) =>
        String((row as Record<string, unknown>)[cursor]),
      ),
    );
  }

  json(value: unknown, status = 200, headers?: Record<string, string>): Reply {
    const body = JSON.stringify(value);
    return {
      status,
      body,
      headers:
        headers === undefined
          ? { 'Content-Type': 'application/json' }
          : { 'Content-Type': 'application/json', ...headers },
    };
  }

  body(body: ReplyBody, status = 200, headers: Record<string, string> = {}): Reply {
    return { status, body, headers };
  }
}
