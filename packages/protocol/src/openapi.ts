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

type JsonObject = Record<string, unknown>;

const ERROR_REF = { $ref: '#/components/responses/Error' };

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonObject {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    override: io === 'output' ? openAnswerObjects : () => {},
  });
  return rest;
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

/** The error codes a route can answer besides `internal_error`, by what the route has. */
function errorCodes(route: RouteDef): ErrorCode[] {
  const codes: ErrorCode[] = ['invalid_request'];
  if (route.auth.kind !== 'public') codes.push('unauthorized');
  if (route.auth.kind === 'owner' || route.auth.kind === 'node') codes.push('forbidden');
  if (route.auth.kind === 'scope') codes.push('scope_missing');
  if (route.params !== undefined) codes.push('not_found');
  if (route.body !== undefined) {
    codes.push('payload_too_large', 'validation_failed');
  }
  codes.push(...(route.errors ?? []), 'internal_error');
  return codes;
}

function operation(route: RouteDef): JsonObject {
  const success = {
    description: route.stream === 'sse' ? 'an SSE stream; each data: is this schema' : 'success',
    content: {
      [route.stream === 'sse' ? 'text/event-stream' : (route.produces ?? 'application/json')]: {
        schema: jsonSchema(route.response, 'output'),
      },
    },
  };
  const responses: JsonObject = { '200': success };
  for (const code of errorCodes(route)) responses[String(ERROR_STATUS[code])] = ERROR_REF;
  const op: JsonObject = {
    operationId: route.id,
    summary: route.summary,
    tags: [route.id.split('.')[0]],
    security: route.auth.kind === 'public' ? [] : [{ bearer: [] }],
    parameters: parameters(route),
    responses,
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
  for (const route of routes) {
    const item = paths[route.path] ?? {};
    item[route.method.toLowerCase()] = operation(route);
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
      schemas: { ErrorEnvelope: jsonSchema(errorEnvelopeSchema, 'output') },
      responses: {
        Error: {
          description: 'an error envelope; the status follows its code',
          headers: { [REQUEST_ID_HEADER]: { schema: { type: 'string' } } },
          content: {
            'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } },
          },
        },
      },
    },
  };
}
