/**
 * The OpenAPI 3.1 document of `/v1`, generated from the route table so it cannot drift from what
 * the daemon validates. OpenAPI 3.1 schemas are JSON Schema 2020-12, which `z.toJSONSchema`
 * emits directly. Requests are described on the input side of each schema (what goes on the
 * wire, e.g. a query integer as a decimal string), answers on the output side.
 */
import { z } from 'zod';
import { ERROR_STATUS, type ErrorCode, REQUEST_ID_HEADER } from './errors.ts';
import type { RouteDef } from './routes/route-def.ts';
import { routes } from './routes/table.ts';
import { errorEnvelopeSchema } from './schemas/common.ts';
import { wireForms } from './schemas/wire-form.ts';

type JsonObject = Record<string, unknown>;

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonObject {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    override: (ctx) => {
      if (io === 'output') openAnswerObjects(ctx);
      wireForm(ctx);
    },
  });
  return rest;
}

/** What `shownAs` and `checkedAs` (schemas/wire-form.ts) say of a schema. */
function wireForm(ctx: { zodSchema: unknown; jsonSchema: JsonObject }): void {
  const form = wireForms.get(ctx.zodSchema as z.ZodType);
  if (form === undefined) return;
  if (form.replace) {
    for (const key of Object.keys(ctx.jsonSchema)) {
      if (key !== 'description') delete ctx.jsonSchema[key];
    }
  }
  Object.assign(ctx.jsonSchema, form.schema);
}

/**
 * zod marks a plain object's output closed (`additionalProperties: false`) because parsing
 * strips unknown keys. An answer must stay open instead: `/v1` only grows (DESIGN §6), and a
 * client validating against this document must accept fields a newer daemon adds. Strict
 * objects (request bodies) keep their `false`.
 */
function openAnswerObjects(ctx: { zodSchema: unknown; jsonSchema: JsonObject }): void {
  const def = (ctx.zodSchema as { _zod: { def: { type: string; catchall?: unknown } } })._zod.def;
  if (def.type === 'object' && def.catchall === undefined)
    delete ctx.jsonSchema.additionalProperties;
}

function parameters(route: RouteDef): JsonObject[] {
  const out: JsonObject[] = [];
  for (const [where, shape] of [
    ['path', route.params?.shape],
    ['query', route.query?.shape],
  ] as const) {
    for (const [name, schema] of Object.entries(shape ?? {})) {
      const field = schema as z.ZodType;
      const param: JsonObject = {
        name,
        in: where,
        required: where === 'path' || !field.safeParse(undefined).success,
        schema: jsonSchema(field, 'input'),
      };
      if (field.description !== undefined) param.description = field.description;
      out.push(param);
    }
  }
  if (mayReplay(route)) {
    out.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description:
        'a repeat with the same key, token, method, path, query and body answers the first answer again (Idempotent-Replayed: true); kept 24 h',
      // The daemon's check (http/idempotency.ts): 1 to 255 visible ASCII characters.
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
    });
  }
  if (route.stream === 'sse') {
    out.push({
      name: 'Last-Event-ID',
      in: 'header',
      required: false,
      description: 'resume after this seq (HTML Living Standard, server-sent events)',
      schema: { type: 'string', pattern: '^\\d+$' },
    });
  }
  return out;
}

/** A route whose answers an `Idempotency-Key` replays: a change, made with a bearer. */
function mayReplay(route: RouteDef): boolean {
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
function errorResponses(route: RouteDef): JsonObject {
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

const REQUEST_ID_HEADERS = { [REQUEST_ID_HEADER]: { $ref: '#/components/headers/RequestId' } };

/**
 * The success answer. An SSE stream's body is text (OpenAPI 3.1 has no schema for one event),
 * so its media type is described as such, and one event's `data:` is a component schema, where
 * generators read it, named by `x-svc-event-data`.
 */
function successResponses(route: RouteDef, events: Record<string, JsonObject>): JsonObject {
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

function operation(route: RouteDef, events: Record<string, JsonObject>): JsonObject {
  const op: JsonObject = {
    operationId: route.id,
    summary: route.summary,
    tags: [route.id.split('.')[0]],
    security: route.auth.kind === 'public' ? [] : [{ bearer: [] }],
    parameters: parameters(route),
    responses: { ...successResponses(route, events), ...errorResponses(route) },
  };
  if (route.auth.kind === 'scope') op['x-svc-scope'] = route.auth.scope;
  if (route.auth.kind !== 'public') op['x-svc-auth'] = route.auth.kind;
  if (route.consumes !== undefined) {
    op.requestBody = {
      required: true,
      content: {
        [route.consumes]: { schema: { type: 'string', contentMediaType: route.consumes } },
      },
    };
  }
  if (route.body !== undefined) {
    op.requestBody = {
      required: !route.body.safeParse(undefined).success,
      content: { 'application/json': { schema: jsonSchema(route.body, 'input') } },
    };
  }
  return op;
}

export function buildOpenApiDocument(info: { version?: string } = {}): JsonObject {
  const paths: Record<string, JsonObject> = {};
  const events: Record<string, JsonObject> = {};
  for (const route of routes) {
    const item = paths[route.path] ?? {};
    item[route.method.toLowerCase()] = operation(route, events);
    paths[route.path] = item;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'svc daemon API',
      version: info.version ?? '0.0.0',
      description: 'The local svc daemon. See docs/api-v1.md for the conventions.',
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    security: [{ bearer: [] }],
    paths,
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'svc_owner_…, svc_app_… or svc_node_… token',
        },
      },
      schemas: { ErrorEnvelope: jsonSchema(errorEnvelopeSchema, 'output'), ...events },
      headers: {
        RequestId: {
          description: "the request's id: the caller's if it sent a valid one, else a new one",
          schema: { type: 'string' },
        },
      },
      responses: {
        Error: {
          description: 'an error envelope; the status follows its code',
          headers: REQUEST_ID_HEADERS,
          content: {
            'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } },
          },
        },
      },
    },
  };
}
