/**
 * The answers of one route in the OpenAPI document: every status it may answer (those every
 * route of its kind shares, one per step of the daemon's request path, and those its table entry
 * names), each error status naming its codes, and an event stream described where OpenAPI 3.1
 * reads it.
 */
import { ERROR_STATUS, type ErrorCode, REQUEST_ID_HEADER } from './errors.ts';
import { type JsonObject, jsonSchema } from './openapi-schema.ts';
import type { RouteDef } from './routes/route-def.ts';

/** A route whose answers an `Idempotency-Key` replays: a change, made with a bearer. */
export function mayReplay(route: RouteDef): boolean {
  return route.method !== 'GET' && route.auth.kind !== 'public';
}

/**
 * The codes a route may answer: those every route of its kind shares, one per step of the
 * daemon's request path (docs/api-v1.md), and those its table entry names (`errors`).
 */
function errorCodes(route: RouteDef): Set<ErrorCode> {
  const codes = new Set<ErrorCode>([
    // A request target, query or header the request path refuses (two Hosts, a bad escape, an
    // Idempotency-Key too long), a body whose framing or JSON is broken.
    'invalid_request',
    // A Host the TCP listener does not serve (DNS rebinding); a token not for this route.
    'forbidden',
    // The daemon is shutting down.
    'not_ready',
    'internal_error',
  ]);
  if (route.auth.kind !== 'public') codes.add('unauthorized');
  if (route.auth.kind === 'scope') codes.add('scope_missing');
  if (route.params !== undefined) codes.add('not_found');
  if (route.params !== undefined || route.query !== undefined || route.body !== undefined) {
    codes.add('validation_failed');
  }
  // Every body is read with the one limit.
  if (route.method !== 'GET') codes.add('payload_too_large');
  // An Idempotency-Key sent again with another request, or while its first is still running.
  if (mayReplay(route)) codes.add('conflict');
  for (const code of route.errors ?? []) codes.add(code);
  return codes;
}

const ERROR_REF = '#/components/responses/Error';

/** The error answers of `route`, one per status, each naming the codes it carries. */
export function errorResponses(route: RouteDef): JsonObject {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodes(route)) {
    const status = ERROR_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: JsonObject = {};
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    out[String(status)] = {
      $ref: ERROR_REF,
      description: `an error envelope: ${codes.join(', ')}`,
    };
  }
  // Answered by the HTTP parser's refusal, before any route is known: every route may get it.
  out['431'] = {
    $ref: ERROR_REF,
    description: 'an error envelope (invalid_request): the request headers are too large',
  };
  return out;
}

/** `nodes.stream` → `NodesStreamEvent`: the component holding one event of a stream. */
function eventComponentName(route: RouteDef): string {
  const words = route.id.split(/[.-]/).map((w) => w.charAt(0).toUpperCase() + w.slice(1));
  return `${words.join('')}Event`;
}

export const REQUEST_ID_HEADERS = {
  [REQUEST_ID_HEADER]: { $ref: '#/components/headers/RequestId' },
};

/**
 * The success answer. An SSE stream's body is text (OpenAPI 3.1 has no schema for one event),
 * so its media type is described as such, and one event's `data:` is a component schema, where
 * generators read it, named by `x-svc-event-data`.
 */
export function successResponses(route: RouteDef, events: Record<string, JsonObject>): JsonObject {
  let content: JsonObject;
  if (route.stream === 'sse') {
    const name = eventComponentName(route);
    events[name] = jsonSchema(route.response, 'output');
    content = {
      'text/event-stream': {
        schema: { type: 'string', contentMediaType: 'text/event-stream' },
        'x-svc-event-data': { $ref: `#/components/schemas/${name}` },
      },
    };
  } else {
    const type = route.produces ?? 'application/json';
    content = { [type]: { schema: jsonSchema(route.response, 'output') } };
  }
  const description =
    route.stream === 'sse'
      ? 'an SSE stream: each event has id: (its seq), event: (its kind) and data:, the JSON the x-svc-event-data schema describes'
      : 'success';
  const out: JsonObject = { '200': { description, headers: REQUEST_ID_HEADERS, content } };
  if (route.noContent !== undefined) {
    out['204'] = { description: route.noContent, headers: REQUEST_ID_HEADERS };
  }
  return out;
}
