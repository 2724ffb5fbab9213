import { newId } from '@svc/protocol';
import type { Sight } from '../access/visibility.ts';
import { record } from './close.ts';
import { content, type HumanCreateBody, newTicket } from './content.ts';
import { type HumanDeps, iso } from './deps.ts';
import { onOpenRequest } from './guards.ts';
import { ticketOf } from './rows.ts';
import type { HumanRequest } from './store.ts';

/** New content: the open ticket is superseded by a new one; `expires_at` is set anew. */
export function replaceRequest(
  deps: HumanDeps,
  id: string,
  body: HumanCreateBody,
  sight: Sight,
): HumanRequest {
  const { store } = deps;
  return onOpenRequest(deps, id, sight, 'replaced', (request) => {
    const now = Date.now();
    const at = iso(now);
    const old = ticketOf(store, request);
    old.state = 'superseded';
    old.updated_at = at;
    store.human.saveTicket(old);
    const ticket = newTicket(store, newId('ticket'), request.id, content(body), at);
    request.ticket_id = ticket.id;
    request.state = 'open';
    request.expires_at =
      body.expires_in_s === undefined ? null : iso(now + body.expires_in_s * 1000);
    request.updated_at = at;
    store.human.saveRequest(request);
    record(deps, request, 'replaced', { superseded_ticket_id: old.id });
  });
}
