/**
 * Human requests and the inbox (docs/api-v1.md "Human requests and the inbox"). A request is the
 * asker's handle; its current ticket is what the person sees. Every change writes the request,
 * the ticket and a `human.request` event in one transaction. When a node's request closes
 * (answered, dismissed, cancelled by someone else, expired) the node gets mail saying so, which
 * wakes it if it waits: the model reads the answer at its next turn.
 *
 * Expiry is checked lazily at the start of every call here, and by a timer (`human-expiry.ts`)
 * for the soonest `expires_at`, so a node waiting on a request that expires unread still wakes.
 */

import {
  APPROVAL_OPTIONS,
  CLOSED_TICKET_STATES,
  type HumanRequestCreateBody as HumanCreateBody,
  type HumanRespondBody,
  isFinal,
  newId,
  OPEN_TICKET_STATES,
  transition,
} from '@svc/protocol';
import { ApiError } from '../errors.ts';
import type { Principal } from '../ports.ts';
import {
  type HumanRequest,
  type HumanRequestRow,
  type HumanResponse,
  type InboxResponse,
  type Ticket,
  type TicketRow,
  toHumanRequest,
  toInboxResponse,
  toTicket,
} from '../store/human.ts';
import type { Store } from '../store/index.ts';
import type { MailFrom } from '../store/mail.ts';
import type { EventLog } from './events.ts';
import type { NodeService } from './nodes.ts';
import { compileUsable } from './output-schema.ts';

export type { HumanCreateBody, HumanRespondBody };

type Action =
  | 'created'
  | 'replaced'
  | 'progress'
  | 'answered'
  | 'dismissed'
  | 'declined'
  | 'cancelled'
  | 'expired';

type Closed = Exclude<HumanRequest['state'], 'open' | 'in_progress'>;

const OWNER: MailFrom = { kind: 'owner', id: null };

export interface HumanServiceDeps {
  store: Store;
  events: EventLog;
  nodes: Pick<NodeService, 'deliver' | 'leaveMail' | 'sender' | 'onFinal'>;
}

export function humanService({ store, events, nodes }: HumanServiceDeps) {
  const listeners = new Set<() => void>();
  const createdHooks: ((row: HumanRequestRow, ticket: TicketRow) => void)[] = [];
  const iso = (ms = Date.now()) => new Date(ms).toISOString();
  const isOpen = (state: string) => (OPEN_TICKET_STATES as readonly string[]).includes(state);

  function changed(afterCommit: (cb: () => void) => void): void {
    afterCommit(() => {
      for (const listener of listeners) listener();
    });
  }

  function ticketOf(request: HumanRequestRow): TicketRow {
    return store.human.ticket(request.ticket_id)!;
  }

  function dto(request: HumanRequestRow): HumanRequest {
    return toHumanRequest(request, ticketOf(request));
  }

  /** The owner sees every request; an app its own; a node those it asked. Else 404. */
  function visibleRequest(id: string, principal: Principal): HumanRequestRow {
    const row = store.human.request(id);
    const sees =
      row !== undefined &&
      (principal.kind === 'owner' ||
        (principal.kind === 'node' && row.node_id === principal.nodeId) ||
        (principal.kind === 'app' && row.app_id === principal.appId));
    if (!sees) throw new ApiError('not_found', `no human request ${id}`, { field: 'id' });
    return row!;
  }

  function ticketRow(id: string): TicketRow {
    const row = store.human.ticket(id);
    if (row === undefined)
      throw new ApiError('not_found', `no ticket ${id}`, { field: 'ticket_id' });
    return row;
  }

  function requireOpen(what: string, state: string, verb: string): void {
    if (!isOpen(state)) {
      throw new ApiError(
        'invalid_state',
        `${what} is '${state}'; only an open or in_progress one can be ${verb}`,
      );
    }
  }

  function record(request: HumanRequestRow, action: Action, extra: object = {}): void {
    events.record('human.request', request.id, {
      request_id: request.id,
      ticket_id: request.ticket_id,
      state: request.state,
      action,
      ...extra,
    });
  }

  /** The checked content of a ticket: kind, options and a schema that compiles. */
  function content(body: HumanCreateBody) {
    const kind = body.kind ?? 'question';
    let options = body.options ?? [];
    if (kind === 'approval') {
      const given = [...new Set(options)].sort();
      if (body.options === undefined) options = [...APPROVAL_OPTIONS];
      else if (given.join() !== [...APPROVAL_OPTIONS].sort().join()) {
        throw new ApiError(
          'validation_failed',
          `an approval's options are ${APPROVAL_OPTIONS.join(' and ')}; omit options`,
          { field: 'options', received: body.options },
        );
      }
    }
    if (new Set(options).size !== options.length) {
      throw new ApiError('validation_failed', 'options must be distinct', {
        field: 'options',
        received: options,
      });
    }
    if (body.response_schema !== undefined) compileUsable(body.response_schema, 'response_schema');
    return {
      kind,
      title: body.title,
      body: body.body ?? '',
      options: JSON.stringify(options),
      response_schema:
        body.response_schema === undefined ? null : JSON.stringify(body.response_schema),
    };
  }

  function newTicket(
    id: string,
    requestId: string,
    checked: ReturnType<typeof content>,
    at: string,
  ): TicketRow {
    const ticket: TicketRow = {
      id,
      request_id: requestId,
      ...checked,
      state: 'open',
      progress_note: null,
      created_at: at,
      updated_at: at,
    };
    store.human.insertTicket(ticket);
    return ticket;
  }

  /** Checks an answer against the ticket it answers; a refusal (422) names the field. */
  function checkResponse(ticket: TicketRow, body: HumanRespondBody): HumanResponse {
    const options = JSON.parse(ticket.options) as string[];
    if (ticket.kind === 'approval' && body.choice === undefined) {
      throw new ApiError(
        'validation_failed',
        `an approval is answered with a choice: ${options.join(' or ')}`,
        { field: 'choice' },
      );
    }
    if (body.choice !== undefined && !options.includes(body.choice)) {
      throw new ApiError(
        'validation_failed',
        options.length === 0
          ? 'this request offers no options: answer with text or data'
          : `choice must be one of: ${options.join(', ')}`,
        { field: 'choice', received: body.choice },
      );
    }
    if (ticket.response_schema !== null) {
      if (body.data === undefined) {
        throw new ApiError(
          'validation_failed',
          'this request has a response_schema: answer with data matching it',
          { field: 'data' },
        );
      }
      const failure = compileUsable(
        JSON.parse(ticket.response_schema),
        'response_schema',
      )(body.data);
      if (failure !== null) {
        throw new ApiError(
          'validation_failed',
          `data does not match response_schema at ${failure.pointer || '/'}: ${failure.reason}`,
          { field: failure.field === '' ? 'data' : `data.${failure.field}` },
        );
      }
    }
    // `data: null` reads as no data in the answer's DTO, so alone it is no answer either (a
    // response_schema that takes null was checked above).
    const noData =
      body.data === undefined || (body.data === null && ticket.response_schema === null);
    if (body.text === undefined && body.choice === undefined && noData) {
      throw new ApiError('validation_failed', 'an answer needs text, a choice or data', {
        field: 'text',
      });
    }
    return {
      text: body.text ?? null,
      choice: body.choice ?? null,
      data: body.data ?? null,
      responded_at: iso(),
    };
  }

  /** Tells the asking node that its request closed; its mail wakes it if it waits. */
  function tellNode(request: HumanRequestRow, ticket: TicketRow, from: MailFrom, reason?: string) {
    if (request.node_id === null) return;
    const node = store.nodes.get(request.node_id);
    if (node === undefined || isFinal(node.state) || !transition(node.state, 'message').ok) return;
    nodes.deliver(node, from, news(request, ticket, reason));
  }

  /** The mail text that tells a node what became of its request. */
  function news(request: HumanRequestRow, ticket: TicketRow, reason?: string): string {
    const response = request.response === null ? null : (JSON.parse(request.response) as object);
    const fields = {
      request_id: request.id,
      title: ticket.title,
      state: request.state,
      ...(response !== null && { response }),
      ...(reason !== undefined && { reason }),
    };
    return `Human request ${request.id} ${request.state}: ${JSON.stringify(fields)}`;
  }

  /** Closes the request and its current ticket, with its event and the node's mail. */
  function close(
    request: HumanRequestRow,
    state: Closed,
    action: Action,
    opts: { response?: HumanResponse; reason?: string | undefined; from: MailFrom | null },
  ): void {
    const at = iso();
    const ticket = ticketOf(request);
    request.state = state;
    request.response = opts.response === undefined ? null : JSON.stringify(opts.response);
    request.updated_at = at;
    ticket.state = state;
    ticket.updated_at = at;
    store.human.saveRequest(request);
    store.human.saveTicket(ticket);
    record(request, action, opts.reason === undefined ? {} : { reason: opts.reason });
    if (opts.from !== null) tellNode(request, ticket, opts.from, opts.reason);
  }

  /** Every open request whose time is up moves to `expired`, each in its own transaction. */
  function expireDue(nowMs = Date.now()): void {
    for (const id of store.human.expiredBy(iso(nowMs))) {
      store.db.transaction((afterCommit) => {
        const row = store.human.request(id);
        if (row === undefined || !isOpen(row.state)) return;
        close(row, 'expired', 'expired', { from: OWNER });
        changed(afterCommit);
      });
    }
  }

  // A node that ends (done, failed, cancelled) can read no answer: its open requests leave the
  // inbox with it, in the same transaction, so the person is never asked for nobody.
  // The node hears of it by mail it reads only if it is revived (or recycled): without it, a
  // revived node would resume still waiting for an answer that can never come.
  nodes.onFinal((node, afterCommit) => {
    for (const id of store.human.openOfNode(node.id)) {
      const request = store.human.request(id)!;
      const reason = `node ${node.id} is ${node.state}`;
      close(request, 'cancelled', 'cancelled', { reason, from: null });
      nodes.leaveMail(node, OWNER, news(request, ticketOf(request), reason));
      changed(afterCommit);
    }
  });

  function respond(request: HumanRequestRow, body: HumanRespondBody, from = OWNER): void {
    const what = `human request ${request.id}`;
    requireOpen(what, request.state, 'answered');
    const response = checkResponse(ticketOf(request), body);
    close(request, 'answered', 'answered', { response, from });
  }

  function cancelledBy(principal: Principal): MailFrom | null {
    // The node withdrawing its own request needs no mail about it.
    if (principal.kind === 'node') return null;
    return nodes.sender(principal);
  }

  /** An inbox call on a ticket: expiry first, then the ticket and its request. */
  function inboxTicket(id: string): { ticket: TicketRow; request: HumanRequestRow } {
    expireDue();
    const ticket = ticketRow(id);
    return { ticket, request: store.human.request(ticket.request_id)! };
  }

  function ticketDto(ticketId: string): Ticket {
    const ticket = ticketRow(ticketId);
    return toTicket(ticket, store.human.request(ticket.request_id)!);
  }

  /** Acts on a ticket that must be the open current ticket of its request. */
  function onOpenTicket(id: string, verb: string, fn: (request: HumanRequestRow) => void): Ticket {
    return store.db.transaction((afterCommit) => {
      const { ticket, request } = inboxTicket(id);
      requireOpen(`ticket ${id}`, ticket.state, verb);
      fn(request);
      changed(afterCommit);
      return ticketDto(id);
    });
  }

  /** Acts on a request the caller sees, which must be open (expiry first, as on every call). */
  function onOpenRequest(
    id: string,
    principal: Principal,
    verb: string,
    fn: (request: HumanRequestRow) => void,
  ): HumanRequest {
    expireDue();
    return store.db.transaction((afterCommit) => {
      const request = visibleRequest(id, principal);
      requireOpen(`human request ${id}`, request.state, verb);
      fn(request);
      changed(afterCommit);
      return dto(request);
    });
  }

  return {
    /** Calls `listener` after every commit that changed a request; returns the unsubscribe. */
    onChange(listener: () => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    /** The soonest `expires_at` of a request still open, or `null`. */
    soonestExpiry(): string | null {
      return store.human.soonestExpiry();
    },

    expireDue,

    create(body: HumanCreateBody, principal: Principal): HumanRequest {
      expireDue();
      return store.db.transaction((afterCommit) => {
        const now = Date.now();
        const at = iso(now);
        const id = newId('human_request');
        const checked = content(body);
        const row: HumanRequestRow = {
          id,
          ticket_id: newId('ticket'),
          state: 'open',
          response: null,
          node_id: principal.kind === 'node' ? principal.nodeId : null,
          app_id: principal.appId,
          expires_at: body.expires_in_s === undefined ? null : iso(now + body.expires_in_s * 1000),
          created_at: at,
          updated_at: at,
        };
        store.human.insertRequest(row);
        const ticket = newTicket(row.ticket_id, id, checked, at);
        record(row, 'created');
        for (const hook of createdHooks) hook(row, ticket);
        changed(afterCommit);
        return toHumanRequest(row, ticket);
      });
    },

    get(id: string, principal: Principal): HumanRequest {
      expireDue();
      return dto(visibleRequest(id, principal));
    },

    /** New content: the open ticket is superseded by a new one; `expires_at` is set anew. */
    replace(id: string, body: HumanCreateBody, principal: Principal): HumanRequest {
      return onOpenRequest(id, principal, 'replaced', (request) => {
        const now = Date.now();
        const at = iso(now);
        const old = ticketOf(request);
        old.state = 'superseded';
        old.updated_at = at;
        store.human.saveTicket(old);
        const ticket = newTicket(newId('ticket'), request.id, content(body), at);
        request.ticket_id = ticket.id;
        request.state = 'open';
        request.expires_at =
          body.expires_in_s === undefined ? null : iso(now + body.expires_in_s * 1000);
        request.updated_at = at;
        store.human.saveRequest(request);
        record(request, 'replaced', { superseded_ticket_id: old.id });
      });
    },

    respond(id: string, body: HumanRespondBody, principal: Principal): HumanRequest {
      return onOpenRequest(id, principal, 'answered', (request) => respond(request, body));
    },

    /**
     * Called in the transaction that creates a request, after its row, ticket and event: the
     * questions of an app's runs are bound to their requests there (`questions.ts`).
     */
    onCreated(hook: (row: HumanRequestRow, ticket: TicketRow) => void): void {
      createdHooks.push(hook);
    },

    /**
     * `questions.answer`: answers request `id` with the checks and states of `respond`, for a
     * caller the questions service already let through; the node's mail is `from` that caller.
     */
    answerFor(id: string, body: HumanRespondBody, from: MailFrom): HumanRequest {
      expireDue();
      return store.db.transaction((afterCommit) => {
        const request = store.human.request(id);
        if (request === undefined)
          throw new ApiError('not_found', `no human request ${id}`, { field: 'id' });
        respond(request, body, from);
        changed(afterCommit);
        return dto(request);
      });
    },

    dismiss(id: string, reason: string | undefined, principal: Principal): HumanRequest {
      return onOpenRequest(id, principal, 'dismissed', (request) =>
        close(request, 'dismissed', 'dismissed', { reason, from: OWNER }),
      );
    },

    cancel(id: string, reason: string | undefined, principal: Principal): HumanRequest {
      return onOpenRequest(id, principal, 'cancelled', (request) =>
        close(request, 'cancelled', 'cancelled', { reason, from: cancelledBy(principal) }),
      );
    },

    /** Open (or in-progress) tickets, newest first. */
    inbox(q: { state?: Ticket['state'] | undefined; before?: string | undefined; limit: number }) {
      expireDue();
      const states = q.state === undefined ? OPEN_TICKET_STATES : [q.state];
      return store.human
        .tickets({ states, before: q.before, limit: q.limit })
        .map((t) => toTicket(t, store.human.request(t.request_id)!));
    },

    /** Closed tickets, newest first. */
    history(q: {
      state?: Ticket['state'] | undefined;
      before?: string | undefined;
      limit: number;
    }) {
      expireDue();
      const states = q.state === undefined ? CLOSED_TICKET_STATES : [q.state];
      return store.human
        .tickets({ states, before: q.before, limit: q.limit })
        .map((t) => toTicket(t, store.human.request(t.request_id)!));
    },

    ticket(id: string): Ticket {
      inboxTicket(id);
      return ticketDto(id);
    },

    respondTicket(id: string, body: HumanRespondBody): Ticket {
      return onOpenTicket(id, 'answered', (request) => respond(request, body));
    },

    /** Marks the ticket (and its request) in progress; a later note replaces the earlier one. */
    progress(id: string, note: string | undefined): Ticket {
      return onOpenTicket(id, 'marked in progress', (request) => {
        const ticket = ticketOf(request);
        const at = iso();
        ticket.state = 'in_progress';
        ticket.progress_note = note ?? ticket.progress_note;
        ticket.updated_at = at;
        request.state = 'in_progress';
        request.updated_at = at;
        store.human.saveTicket(ticket);
        store.human.saveRequest(request);
        record(request, 'progress', note === undefined ? {} : { note });
      });
    },

    /** The person declines: the request is dismissed. */
    decline(id: string, reason: string | undefined): Ticket {
      return onOpenTicket(id, 'declined', (request) =>
        close(request, 'dismissed', 'declined', { reason, from: OWNER }),
      );
    },

    response(id: string): InboxResponse {
      const { ticket, request } = inboxTicket(id);
      if (ticket.state !== 'answered' || request.response === null) {
        throw new ApiError(
          'invalid_state',
          `ticket ${id} is '${ticket.state}'; a response exists once it is answered`,
        );
      }
      return toInboxResponse(JSON.parse(request.response) as HumanResponse);
    },
  };
}

export type HumanService = ReturnType<typeof humanService>;
