/**
 * The `customObjects` routes (docs/api-v1.md "Custom objects"). Any token registers (an argv
 * receiver needs `svc:act`, checked by the daemon since it depends on the body). The owner sees
 * every object, an app its own and those of apps it holds `svc:objects:read:app:<id>` for;
 * anyone else's answers 404. Publishing takes the object's publish token, which works nowhere else.
 */
import { listOf } from '../schemas/common.ts';
import {
  customObjectAckBodySchema,
  customObjectAckResultSchema,
  customObjectDeleteResultSchema,
  customObjectListQuerySchema,
  customObjectParamsSchema,
  customObjectPublishBodySchema,
  customObjectPublishResultSchema,
  customObjectReceiveQuerySchema,
  customObjectRegisterBodySchema,
  customObjectRegisterResultSchema,
  customObjectSchema,
  objectDeliverySchema,
} from '../schemas/custom-objects.ts';
import type { RouteDef } from './route-def.ts';

const TOKEN = { kind: 'token' } as const;

export const customObjectRoutes = [
  {
    id: 'customObjects.register',
    method: 'POST',
    path: '/v1/custom-objects',
    auth: TOKEN,
    summary:
      'Register a custom object: its event catalog and receiver; answers its publish token (and a url receiver its signing secret) once',
    body: customObjectRegisterBodySchema,
    response: customObjectRegisterResultSchema,
    errors: ['scope_missing', 'forbidden'],
  },
  {
    id: 'customObjects.list',
    method: 'GET',
    path: '/v1/custom-objects',
    auth: TOKEN,
    summary: 'List the custom objects the caller may see, newest first',
    query: customObjectListQuerySchema,
    response: listOf(customObjectSchema),
    visibility: 'objects-read',
    page: { cursor: 'id' },
  },
  {
    id: 'customObjects.retrieve',
    method: 'GET',
    path: '/v1/custom-objects/{id}',
    auth: TOKEN,
    summary: 'Get a custom object',
    params: customObjectParamsSchema,
    response: customObjectSchema,
    visibility: 'objects-read',
  },
  {
    id: 'customObjects.unregister',
    method: 'DELETE',
    path: '/v1/custom-objects/{id}',
    auth: TOKEN,
    summary: 'Delete a custom object: its pending deliveries stop and its open receive streams end',
    params: customObjectParamsSchema,
    response: customObjectDeleteResultSchema,
    errors: ['forbidden'],
    visibility: 'objects-read',
  },
  {
    id: 'customObjects.publish',
    method: 'POST',
    path: '/v1/custom-objects/{id}/publish',
    auth: { kind: 'publish' },
    summary:
      "Publish one declared event: recorded as an object.event and delivered to the object's receiver",
    params: customObjectParamsSchema,
    body: customObjectPublishBodySchema,
    response: customObjectPublishResultSchema,
    errors: ['forbidden'],
    // A publish token sees its own object; any other token, by the rule.
    visibility: 'objects-read',
  },
  {
    id: 'customObjects.receive',
    method: 'GET',
    path: '/v1/custom-objects/{id}/deliveries',
    auth: TOKEN,
    summary:
      "A queue receiver's deliveries as server-sent events: every unacknowledged one on each connect, then live ones",
    params: customObjectParamsSchema,
    query: customObjectReceiveQuerySchema,
    response: objectDeliverySchema,
    stream: 'sse',
    errors: ['invalid_state'],
    visibility: 'objects-read',
  },
  {
    id: 'customObjects.ack',
    method: 'POST',
    path: '/v1/custom-objects/{id}/ack',
    auth: TOKEN,
    summary: "Acknowledge a queue receiver's deliveries; acknowledging twice changes nothing",
    params: customObjectParamsSchema,
    body: customObjectAckBodySchema,
    response: customObjectAckResultSchema,
    errors: ['forbidden', 'invalid_state'],
    visibility: 'objects-read',
  },
] as const satisfies readonly RouteDef[];
