/**
 * Closing a request (answered, dismissed, cancelled, expired): the request and its current
 * ticket, the `human.request` event, and the asking node's mail, which wakes it if it waits.
 */
import { isFinal, transition } from '@svc/protocol';
import type { MailFrom } from '../nodes/store/mail.ts';
import { type Action, type Closed, type HumanDeps, iso } from './deps.ts';
import { ticketOf } from './rows.ts';
import type { HumanRequestRow, HumanResponse, TicketRow } from './store.ts';

/** The `human.request` event of a change to `request`. */
export function record(
  { events }: Pick<HumanDeps, 'events'>,
  request: HumanRequestRow,
  action: Action,
  extra: object = {},
): void {
  events.record('human.request', request.id, {
    request_id: request.id,
    ticket_id: request.ticket_id,
    state: request.state,
    action,
    ...extra,
  });
}

/** The mail text that tells a node what became of its request. */
export function news(request: HumanRequestRow, ticket: TicketRow, reason?: string): string {
  const fields = {
    request_id: request.id,
    title: ticket.title,
    state: request.state,
    ...(request.response !== null && { response: request.response }),
    ...(reason !== undefined && { reason }),
  };
  return `Human request ${request.id} ${request.state}: ${JSON.stringify(fields)}`;
}

/** Tells the asking node that its request closed; its mail wakes it if it waits. */
function tellNode(
  { store, nodes }: Pick<HumanDeps, 'store' | 'nodes'>,
  request: HumanRequestRow,
  ticket: TicketRow,
  from: MailFrom,
  reason?: string,
): void {
  if (request.node_id === null) return;
  const node = store.nodes.get(request.node_id);
  if (node === undefined || isFinal(node.state) || !transition(node.state, 'message').ok) return;
  nodes.deliver(node, from, news(request, ticket, reason));
}

/** Closes the request and its current ticket, with its event and the node's mail. */
export function close(
  deps: Pick<HumanDeps, 'store' | 'events' | 'nodes'>,
  request: HumanRequestRow,
  state: Closed,
  action: Action,
  opts: { response?: HumanResponse; reason?: string | undefined; from: MailFrom | null },
): void {
  const { store } = deps;
  const at = iso();
  const ticket = ticketOf(store, request);
  request.state = state;
  request.response = opts.response ?? null;
  request.updated_at = at;
  ticket.state = state;
  ticket.updated_at = at;
  store.human.saveRequest(request);
  store.human.saveTicket(ticket);
  record(deps, request, action, opts.reason === undefined ? {} : { reason: opts.reason });
  if (opts.from !== null) tellNode(deps, request, ticket, opts.from, opts.reason);
}
