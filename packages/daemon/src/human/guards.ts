/** The frame of every change: expiry first, then the row the caller may act on, open. */
import type { Sight } from '../access/visibility.ts';
import type { HumanDeps } from './deps.ts';
import { expireDue } from './expire.ts';
import { requestDto, requireOpen, ticketDto, ticketRow } from './rows.ts';
import type { HumanRequest, HumanRequestRow, Ticket, TicketRow } from './store.ts';
import { visibleRequest } from './visibility.ts';

/** An inbox call on a ticket: expiry first, then the ticket and its request. */
export function inboxTicket(
  deps: HumanDeps,
  id: string,
): { ticket: TicketRow; request: HumanRequestRow } {
  expireDue(deps);
  const ticket = ticketRow(deps.store, id);
  return { ticket, request: deps.store.human.request(ticket.request_id)! };
}

/** Acts on a ticket that must be the open current ticket of its request. */
export function onOpenTicket(
  deps: HumanDeps,
  id: string,
  verb: string,
  fn: (request: HumanRequestRow) => void,
): Ticket {
  return deps.store.db.transaction((afterCommit) => {
    const { ticket, request } = inboxTicket(deps, id);
    requireOpen(`ticket ${id}`, ticket.state, verb);
    fn(request);
    deps.changed(afterCommit);
    return ticketDto(deps.store, id);
  });
}

/** Acts on a request the caller sees, which must be open (expiry first, as on every call). */
export function onOpenRequest(
  deps: HumanDeps,
  id: string,
  sight: Sight,
  verb: string,
  fn: (request: HumanRequestRow) => void,
): HumanRequest {
  expireDue(deps);
  return deps.store.db.transaction((afterCommit) => {
    const request = visibleRequest(deps.store, id, sight);
    requireOpen(`human request ${id}`, request.state, verb);
    fn(request);
    deps.changed(afterCommit);
    return requestDto(deps.store, request);
  });
}
