/** The person's inbox: tickets open and closed, one ticket, its response. */
import { CLOSED_TICKET_STATES, OPEN_TICKET_STATES } from '@svc/protocol';
import { ApiError } from '../errors.ts';
import type { HumanDeps } from './deps.ts';
import { expireDue } from './expire.ts';
import { inboxTicket } from './guards.ts';
import { ticketDto } from './rows.ts';
import { type InboxResponse, type Ticket, toInboxResponse, toTicket } from './store.ts';

export interface TicketQuery {
  state?: Ticket['state'] | undefined;
  before?: string | undefined;
  limit: number;
}

/** Open (or in-progress) tickets, newest first. */
export function listInbox(deps: HumanDeps, q: TicketQuery): Ticket[] {
  return tickets(deps, q, OPEN_TICKET_STATES);
}

/** Closed tickets, newest first. */
export function listHistory(deps: HumanDeps, q: TicketQuery): Ticket[] {
  return tickets(deps, q, CLOSED_TICKET_STATES);
}

function tickets(deps: HumanDeps, q: TicketQuery, all: readonly Ticket['state'][]): Ticket[] {
  const { store } = deps;
  expireDue(deps);
  const states = q.state === undefined ? all : [q.state];
  return store.human
    .tickets({ states, before: q.before, limit: q.limit })
    .map((t) => toTicket(t, store.human.request(t.request_id)!));
}

export function getTicket(deps: HumanDeps, id: string): Ticket {
  inboxTicket(deps, id);
  return ticketDto(deps.store, id);
}

export function ticketResponse(deps: HumanDeps, id: string): InboxResponse {
  const { ticket, request } = inboxTicket(deps, id);
  if (ticket.state !== 'answered' || request.response === null) {
    throw new ApiError(
      'invalid_state',
      `ticket ${id} is '${ticket.state}'; a response exists once it is answered`,
    );
  }
  return toInboxResponse(request.response);
}
