/**
 * The `human.requests` and `human.inbox` routes (docs/api-v1.md "Human requests and the inbox").
 * Asking (create, replace, cancel) needs `svc:act`; a request is seen by its asker and the owner
 * only (`own-app-or-node`: anyone else gets 404). Answering is the person's: the owner token, as is every inbox
 * route. `/v1/human/inbox/history` comes before `/v1/human/inbox/{ticket_id}` so it is never read
 * as a ticket id.
 */
import { listOf } from '../schemas/common.ts';
import {
  humanReasonBodySchema,
  humanRequestCreateBodySchema,
  humanRequestParamsSchema,
  humanRequestSchema,
  humanRespondBodySchema,
  inboxHistoryQuerySchema,
  inboxListQuerySchema,
  inboxResponseSchema,
  ticketParamsSchema,
  ticketProgressBodySchema,
  ticketSchema,
} from '../schemas/human.ts';
import type { RouteDef } from './route-def.ts';

const ACT = { kind: 'scope', scope: 'svc:act' } as const;
const TOKEN = { kind: 'token' } as const;
const OWNER = { kind: 'owner' } as const;

export const humanRoutes = [
  {
    id: 'human.requests.create',
    method: 'POST',
    path: '/v1/human/requests',
    auth: ACT,
    summary: "Ask the person something: opens a ticket in their inbox (a node's records its id)",
    body: humanRequestCreateBodySchema,
    response: humanRequestSchema,
  },
  {
    id: 'human.requests.retrieve',
    method: 'GET',
    path: '/v1/human/requests/{id}',
    auth: TOKEN,
    summary: 'Get a human request, with the response once answered',
    params: humanRequestParamsSchema,
    response: humanRequestSchema,
    visibility: 'own-app-or-node',
  },
  {
    id: 'human.requests.replace',
    method: 'PUT',
    path: '/v1/human/requests/{id}',
    auth: ACT,
    summary:
      'Replace the content of an open request: its ticket is superseded by a new one (same request id)',
    params: humanRequestParamsSchema,
    body: humanRequestCreateBodySchema,
    response: humanRequestSchema,
    visibility: 'own-app-or-node',
  },
  {
    id: 'human.requests.respond',
    method: 'POST',
    path: '/v1/human/requests/{id}/respond',
    auth: OWNER,
    summary: 'Answer a request (its current ticket)',
    params: humanRequestParamsSchema,
    body: humanRespondBodySchema,
    response: humanRequestSchema,
    visibility: 'own-app-or-node',
  },
  {
    id: 'human.requests.dismiss',
    method: 'POST',
    path: '/v1/human/requests/{id}/dismiss',
    auth: OWNER,
    summary: 'Close a request without an answer',
    params: humanRequestParamsSchema,
    body: humanReasonBodySchema,
    response: humanRequestSchema,
    visibility: 'own-app-or-node',
  },
  {
    id: 'human.requests.cancel',
    method: 'POST',
    path: '/v1/human/requests/{id}/cancel',
    auth: ACT,
    summary: 'The asker withdraws the request',
    params: humanRequestParamsSchema,
    body: humanReasonBodySchema,
    response: humanRequestSchema,
    visibility: 'own-app-or-node',
  },
  {
    id: 'human.inbox.list',
    method: 'GET',
    path: '/v1/human/inbox',
    auth: OWNER,
    summary: 'Tickets waiting for the person (open and in progress), newest first',
    query: inboxListQuerySchema,
    response: listOf(ticketSchema),
    page: { cursor: 'id' },
  },
  {
    id: 'human.inbox.history',
    method: 'GET',
    path: '/v1/human/inbox/history',
    auth: OWNER,
    summary: 'Closed tickets (answered, dismissed, cancelled, superseded, expired), newest first',
    query: inboxHistoryQuerySchema,
    response: listOf(ticketSchema),
    page: { cursor: 'id' },
  },
  {
    id: 'human.inbox.retrieve',
    method: 'GET',
    path: '/v1/human/inbox/{ticket_id}',
    auth: OWNER,
    summary: 'Get a ticket',
    params: ticketParamsSchema,
    response: ticketSchema,
  },
  {
    id: 'human.inbox.respond',
    method: 'POST',
    path: '/v1/human/inbox/{ticket_id}/respond',
    auth: OWNER,
    summary: 'Answer a ticket',
    params: ticketParamsSchema,
    body: humanRespondBodySchema,
    response: ticketSchema,
  },
  {
    id: 'human.inbox.progress',
    method: 'POST',
    path: '/v1/human/inbox/{ticket_id}/progress',
    auth: OWNER,
    summary: 'Mark a ticket in progress, with an optional note for the asker',
    params: ticketParamsSchema,
    body: ticketProgressBodySchema,
    response: ticketSchema,
  },
  {
    id: 'human.inbox.cancel',
    method: 'POST',
    path: '/v1/human/inbox/{ticket_id}/cancel',
    auth: OWNER,
    summary: 'The person declines the ticket: its request is dismissed',
    params: ticketParamsSchema,
    body: humanReasonBodySchema,
    response: ticketSchema,
  },
  {
    id: 'human.inbox.response',
    method: 'GET',
    path: '/v1/human/inbox/{ticket_id}/response',
    auth: OWNER,
    summary: "The ticket's response (409 while it has none)",
    params: ticketParamsSchema,
    response: inboxResponseSchema,
    errors: ['invalid_state'],
  },
] as const satisfies readonly RouteDef[];
