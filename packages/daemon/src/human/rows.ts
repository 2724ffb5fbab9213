/** A request's and a ticket's rows as the operations read them, and their DTOs. */
import { ApiError } from '../errors.ts';
import type { Store } from '../store/index.ts';
import { isOpen } from './deps.ts';
import {
  type HumanRequest,
  type HumanRequestRow,
  type Ticket,
  type TicketRow,
  toHumanRequest,
  toTicket,
} from './store.ts';

type Deps = Pick<Store, 'human'>;

export function ticketOf(store: Deps, request: HumanRequestRow): TicketRow {
  return store.human.ticket(request.ticket_id)!;
}

export function requestDto(store: Deps, request: HumanRequestRow): HumanRequest {
  return toHumanRequest(request, ticketOf(store, request));
}

export function ticketRow(store: Deps, id: string): TicketRow {
  const row = store.human.ticket(id);
  if (row === undefined) throw new ApiError('not_found', `no ticket ${id}`, { field: 'ticket_id' });
  return row;
}

export function ticketDto(store: Deps, ticketId: string): Ticket {
  const ticket = ticketRow(store, ticketId);
  return toTicket(ticket, store.human.request(ticket.request_id)!);
}

export function requireOpen(what: string, state: string, verb: string): void {
  if (!isOpen(state)) {
    throw new ApiError(
      'invalid_state',
      `${what} is '${state}'; only an open or in_progress one can be ${verb}`,
    );
  }
}
