import type { IncomingMessage } from 'node:http';
import { REQUEST_BODY_MAX_BYTES, type RouteDef } from '@svc/protocol';
import type { z } from 'zod';
import { ApiError } from '../errors.ts';
import { holdsLoneSurrogate, MAX_JSON_DEPTH, nestsTooDeep } from '../store/json.ts';
import type { Call, RouteInput } from './call.ts';
import { validationError } from './errors.ts';

/** A `\uD800`–`\uDFFF` escape in JSON text: the only way a lone surrogate gets into a body. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/**
 * The event the listener's parse-error handler emits on a request whose body it cannot frame
 * (a bad chunk size, a body cut short by the client's FIN), with the refusal to answer. Node
 * would close the connection without a word; the body's reader answers it as a 400 instead,
 * through the request path, so it carries the request's id and is logged as every answer is.
 */
export const BODY_FAULT = Symbol('svc.bodyFault');

/** Largest request body accepted: the protocol's, which the CLI checks before sending too. */
export const MAX_BODY_BYTES = REQUEST_BODY_MAX_BYTES;

/**
 * Reads and validates the matched route's params, query and body. The body is read with a hard
 * byte limit (a lying or absent Content-Length cannot get past it), must be JSON whatever its
 * Content-Type (400 when malformed) and then match the route's schema (422 naming the field).
 * A GET or HEAD has no body to read, so it costs no promise.
 */
export function readInput(
  c: Call,
  req: IncomingMessage,
  route: RouteDef,
  params: Record<string, string>,
): RouteInput | Promise<RouteInput> {
  const input: RouteInput = {
    params: parse(route.params, params, 'params'),
    query: route.query === undefined ? undefined : parse(route.query, queryOf(c.query), 'query'),
    body: undefined,
    raw: NO_BYTES,
  };
  const method = c.method;
  if (method === 'GET' || method === 'HEAD') return input;
  return readBody(req).then((raw) => {
    input.raw = raw;
    if (route.body !== undefined) {
      const json = raw.length === 0 ? {} : decodeJson(raw);
      input.body = parse(route.body, json, 'body');
    }
    return input;
  });
}

/** The body of a request without one: shared, never written to (a zero-length view). */
const NO_BYTES = new Uint8Array();

/** The query's parameters (the last of a repeated name wins), as `URLSearchParams` reads them. */
function queryOf(query: string): Record<string, string> {
  if (query === '') return {};
  // `URLSearchParams` turns an escape that is not UTF-8 (`%FF`) into U+FFFD without a word: a
  // DELETE would then act on another name than the one sent.
  if (query.includes('%')) {
    for (const part of query.split(/[&=]/)) {
      try {
        decodeURIComponent(part);
      } catch {
        throw new ApiError('invalid_request', 'the query is not valid percent-encoded UTF-8');
      }
    }
  }
  return Object.fromEntries(new URLSearchParams(query));
}

function parse(
  schema: z.ZodType | undefined,
  value: unknown,
  where: 'params' | 'query' | 'body',
): unknown {
  if (schema === undefined) return undefined;
  const result = schema.safeParse(value);
  if (!result.success) throw validationError(result.error, where);
  return result.data;
}

/**
 * The body, refused with 413 past `MAX_BODY_BYTES` whatever Content-Length claims. What is left of
 * a refused body is read and dropped by node (the answer closes the connection, `writeReply`'s
 * caller sees to that), so it is never taken for the next request.
 */
function readBody(req: IncomingMessage): Promise<Uint8Array> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > MAX_BODY_BYTES) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
      else {
        req.off('data', onData);
        req.resume();
        reject(tooLarge());
      }
    };
    req.on('data', onData);
    req.once('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    // A client gone mid-body: nobody waits for the answer, but the request must not hang, and it
    // is the client's doing, not a bug. Node emits `error` (ECONNRESET "aborted") before `close`.
    const endedEarly = () =>
      reject(new ApiError('invalid_request', 'the request body ended early'));
    req.once('error', endedEarly);
    req.once(BODY_FAULT, reject);
    req.once('close', () => {
      if (!req.complete) endedEarly();
    });
  });
}

/**
 * The body as JSON, whatever its `Content-Type`: `fetch` labels a string body `text/plain`, and
 * every route that takes a body needs a bearer token, which no page can send cross-site without
 * a preflight, so the label guards nothing here (the plugin kit, which may run without auth,
 * checks where a simple post comes from instead).
 */
function decodeJson(raw: Uint8Array): unknown {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(raw);
  } catch {
    throw new ApiError('invalid_request', 'request body is not valid UTF-8');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    // Only the position: V8's message may quote the body around the fault, and a body may
    // carry a secret (an API key, a profile's env value) that must not come back in an answer.
    const at = /at position (\d+)/.exec((error as Error).message)?.[1];
    throw new ApiError(
      'invalid_request',
      `request body is not valid JSON${at === undefined ? '' : ` (at character ${at})`}`,
    );
  }
  if (nestsTooDeep(value)) {
    throw new ApiError(
      'invalid_request',
      `request body nests deeper than ${MAX_JSON_DEPTH} levels`,
    );
  }
  // Only an escape can make a surrogate; most bodies have none and skip the walk.
  if (SURROGATE_ESCAPE.test(text) && holdsLoneSurrogate(value)) {
    throw new ApiError(
      'invalid_request',
      'request body holds a lone surrogate (a \\uD800-\\uDFFF escape without its pair): JSON text must be valid Unicode',
    );
  }
  return value;
}

function tooLarge(): ApiError {
  return new ApiError('payload_too_large', `request bodies are limited to ${MAX_BODY_BYTES} bytes`);
}
