import { record } from './close.ts';
import { type HumanDeps, iso } from './deps.ts';
import { onOpenTicket } from './guards.ts';
import { ticketOf } from './rows.ts';
import type { Ticket } from './store.ts';

/** Marks the ticket (and its request) in progress; a later note replaces the earlier one. */
export function markProgress(deps: HumanDeps, id: string, note: string | undefined): Ticket {
  const { store } = deps;
  return onOpenTicket(deps, id, 'marked in progress', (request) => {
    const ticket = ticketOf(store, request);
    const at = iso();
    ticket.state = 'in_progress';
    ticket.progress_note = note ?? ticket.progress_note;
    ticket.updated_at = at;
    request.state = 'in_progress';
    request.updated_at = at;
    store.human.saveTicket(ticket);
    store.human.saveRequest(request);
    record(deps, request, 'progress', note === undefined ? {} : { note });
  });
}
