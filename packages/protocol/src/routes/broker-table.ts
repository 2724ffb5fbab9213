/**
 * The broker's control plane (SPEC "Routes without a client method"): node-token routes a
 * node's own broker calls, and nobody else, since an outside caller would be a second writer of
 * the node's conversation. Reached with `client.request`; no generated client method.
 */
import {
  brokerClaimBodySchema,
  brokerSessionSchema,
  directiveQuerySchema,
  directiveSchema,
  faultBodySchema,
  faultRecordResultSchema,
  jobRecordBodySchema,
  reportBodySchema,
  toolResultBodySchema,
  toolResultRecordSchema,
  turnRecordBodySchema,
  turnRecordResultSchema,
} from '../schemas/broker.ts';
import {
  jobSchema,
  nodeParamsSchema,
  nodeSchema,
  reportSchema,
  resultSubmitBodySchema,
} from '../schemas/nodes.ts';
import { pluginTokenBodySchema, pluginTokenSchema } from '../schemas/plugins.ts';
import type { RouteDef } from './route-def.ts';

const NODE = { kind: 'node' } as const;

export const brokerRoutes = [
  {
    id: 'broker.claim',
    method: 'POST',
    path: '/v1/nodes/{id}/broker/claim',
    auth: NODE,
    summary: 'Bind the broker to its node (queued → running); answers what it resumes from',
    params: nodeParamsSchema,
    body: brokerClaimBodySchema,
    response: brokerSessionSchema,
  },
  {
    id: 'broker.turns.record',
    method: 'POST',
    path: '/v1/nodes/{id}/broker/turns',
    auth: NODE,
    summary: 'Record a model turn before running its tool calls',
    params: nodeParamsSchema,
    body: turnRecordBodySchema,
    response: turnRecordResultSchema,
  },
  {
    id: 'broker.toolResults.record',
    method: 'POST',
    path: '/v1/nodes/{id}/broker/tool-results',
    auth: NODE,
    summary: "Record a tool call's result before the next turn; the last one may park at a budget",
    params: nodeParamsSchema,
    body: toolResultBodySchema,
    response: toolResultRecordSchema,
  },
  {
    id: 'broker.faults.record',
    method: 'POST',
    path: '/v1/nodes/{id}/broker/faults',
    auth: NODE,
    summary: 'Record a fault; a fatal one fails the node',
    params: nodeParamsSchema,
    body: faultBodySchema,
    response: faultRecordResultSchema,
  },
  {
    id: 'broker.result.submit',
    method: 'POST',
    path: '/v1/nodes/{id}/broker/result',
    auth: NODE,
    summary: "The node's submit tool: record the outcome; the node is done",
    params: nodeParamsSchema,
    body: resultSubmitBodySchema,
    response: nodeSchema,
  },
  {
    id: 'broker.reports.create',
    method: 'POST',
    path: '/v1/nodes/{id}/broker/reports',
    auth: NODE,
    summary: 'Post a progress report',
    params: nodeParamsSchema,
    body: reportBodySchema,
    response: reportSchema,
  },
  {
    id: 'broker.jobs.record',
    method: 'POST',
    path: '/v1/nodes/{id}/broker/jobs',
    auth: NODE,
    summary: 'Start a job, or settle one by id',
    params: nodeParamsSchema,
    body: jobRecordBodySchema,
    response: jobSchema,
  },
  {
    id: 'broker.directive.get',
    method: 'GET',
    path: '/v1/nodes/{id}/broker/directive',
    auth: NODE,
    summary: 'What the broker should do now; long-polls up to wait_s while it is continue',
    params: nodeParamsSchema,
    query: directiveQuerySchema,
    response: directiveSchema,
  },
  {
    id: 'broker.pluginToken.mint',
    method: 'POST',
    path: '/v1/nodes/{id}/broker/plugin-token',
    auth: NODE,
    summary:
      "A token for one call of a directory-mode plugin's group the node's scopes cover, signed by the daemon's directory",
    params: nodeParamsSchema,
    body: pluginTokenBodySchema,
    response: pluginTokenSchema,
  },
] as const satisfies readonly RouteDef[];
