/**
 * The OpenAPI 3.1 document of `/v1`, generated from the route table so it cannot drift from what
 * the daemon validates (docs/api-v1.md, "The OpenAPI document"): schemas in
 * `openapi-schema.ts`, each route's answers in `openapi-responses.ts`.
 */
import type { z } from 'zod';
import {
  errorResponses,
  mayReplay,
  REQUEST_ID_HEADERS,
  successResponses,
} from './openapi-responses.ts';
import { type JsonObject, jsonSchema } from './openapi-schema.ts';
import type { RouteDef } from './routes/route-def.ts';
import { routes } from './routes/table.ts';
import { errorEnvelopeSchema } from './schemas/common.ts';

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
