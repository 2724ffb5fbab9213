import type {
  HumanReasonBody,
  HumanRequest,
  HumanRequestCreateBody,
  HumanRespondBody,
  InboxHistoryQuery,
  InboxListQuery,
  InboxResponse,
  Ticket,
  TicketProgressBody,
} from '@svc/protocol';
import type { APIPromise } from '../core/api-promise.ts';
import type { PagePromise } from '../core/page-promise.ts';
import type { ListPage } from '../core/pages.ts';
import { id, pathOf } from '../core/path.ts';
import type { RequestOptions } from '../core/request-options.ts';
import { APIResource } from '../core/resource.ts';
import type { Transport } from '../core/transport.ts';

export type HumanRequestCreateParams = HumanRequestCreateBody;
export type HumanRespondParams = HumanRespondBody;
export type HumanReasonParams = HumanReasonBody;
export type TicketList = ListPage<Ticket>;
export type InboxListParams = InboxListQuery;
export type InboxHistoryParams = InboxHistoryQuery;
export type TicketProgressParams = TicketProgressBody;

const request = (value: unknown) => id('human_request', value, 'requestId');
const ticket = (value: unknown) => id('ticket', value, 'ticketId');

/** `client.human.requests`: the asker's side. */
export class HumanRequests extends APIResource {
  /** Opens a request in the person's inbox (`svc:act`). */
  create(params: HumanRequestCreateParams, options?: RequestOptions): APIPromise<HumanRequest> {
    return this._transport.request(
      'POST',
      pathOf('human.requests.create'),
      { body: params },
      options,
    );
  }

  retrieve(requestId: string, options?: RequestOptions): APIPromise<HumanRequest> {
    return this._transport.request(
      'GET',
      pathOf('human.requests.retrieve', { id: request(requestId) }),
      {},
      options,
    );
  }

  /** New content for an open request: its ticket is superseded by a new one (PUT). */
  replace(
    requestId: string,
    params: HumanRequestCreateParams,
    options?: RequestOptions,
  ): APIPromise<HumanRequest> {
    const url = pathOf('human.requests.replace', { id: request(requestId) });
    return this._transport.request('PUT', url, { body: params }, options);
  }

  /** Answers the request (the owner only). */
  respond(
    requestId: string,
    params: HumanRespondParams,
    options?: RequestOptions,
  ): APIPromise<HumanRequest> {
    const url = pathOf('human.requests.respond', { id: request(requestId) });
    return this._transport.request('POST', url, { body: params }, options);
  }

  /** Closes the request without an answer (the owner only). */
  dismiss(
    requestId: string,
    params: HumanReasonParams = {},
    options?: RequestOptions,
  ): APIPromise<HumanRequest> {
    const url = pathOf('human.requests.dismiss', { id: request(requestId) });
    return this._transport.request('POST', url, { body: params }, options);
  }

  /** The asker withdraws the request. */
  cancel(
    requestId: string,
    params: HumanReasonParams = {},
    options?: RequestOptions,
  ): APIPromise<HumanRequest> {
    const url = pathOf('human.requests.cancel', { id: request(requestId) });
    return this._transport.request('POST', url, { body: params }, options);
  }
}

/** `client.human.inbox`: the person's side (the owner token). */
export class HumanInbox extends APIResource {
  /** Open and in-progress tickets, newest first. */
  list(params: InboxListParams = {}, options?: RequestOptions): PagePromise<TicketList> {
    return this._transport.list(pathOf('human.inbox.list'), { ...params }, options);
  }

  retrieve(ticketId: string, options?: RequestOptions): APIPromise<Ticket> {
    return this._transport.request(
      'GET',
      pathOf('human.inbox.retrieve', { ticket_id: ticket(ticketId) }),
      {},
      options,
    );
  }

  respond(
    ticketId: string,
    params: HumanRespondParams,
    options?: RequestOptions,
  ): APIPromise<Ticket> {
    const url = pathOf('human.inbox.respond', { ticket_id: ticket(ticketId) });
    return this._transport.request('POST', url, { body: params }, options);
  }

  /** Marks the ticket in progress, with an optional note for the asker. */
  progress(
    ticketId: string,
    params: TicketProgressParams = {},
    options?: RequestOptions,
  ): APIPromise<Ticket> {
    const url = pathOf('human.inbox.progress', { ticket_id: ticket(ticketId) });
    return this._transport.request('POST', url, { body: params }, options);
  }

  /** The person declines the ticket: its request is dismissed. */
  cancel(
    ticketId: string,
    params: HumanReasonParams = {},
    options?: RequestOptions,
  ): APIPromise<Ticket> {
    const url = pathOf('human.inbox.cancel', { ticket_id: ticket(ticketId) });
    return this._transport.request('POST', url, { body: params }, options);
  }

  /** Closed tickets (answered, dismissed, cancelled, superseded, expired), newest first. */
  history(params: InboxHistoryParams = {}, options?: RequestOptions): PagePromise<TicketList> {
    const query = { ...params };
    return this._transport.list(pathOf('human.inbox.history'), query, options);
  }

  /** The ticket's response; a `ConflictError` while it has none. */
  response(ticketId: string, options?: RequestOptions): APIPromise<InboxResponse> {
    const url = pathOf('human.inbox.response', { ticket_id: ticket(ticketId) });
    return this._transport.request('GET', url, {}, options);
  }
}

/** `client.human`: requests a person answers, and their inbox. */
export class Human extends APIResource {
  readonly requests: HumanRequests;
  readonly inbox: HumanInbox;

  constructor(transport: Transport) {
    super(transport);
    this.requests = new HumanRequests(transport);
    this.inbox = new HumanInbox(transport);
  }
}
