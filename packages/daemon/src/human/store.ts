/**
 * Human requests and inbox tickets (migration 007). Rows come back parsed (a request's response,
 * a ticket's options and response schema; written back as JSON here). A request answers as the
 * protocol's `HumanRequest` with the content of its current ticket (`toHumanRequest`); a ticket
 * as `Ticket` with its request's asker (`toTicket`).
 */
import type { HumanRequest, HumanResponse, InboxResponse, Ticket } from '@svc/protocol';
import type { Db } from '../store/db.ts';

export type { HumanRequest, HumanResponse, InboxResponse, Ticket };

export interface HumanRequestRow {
  id: string;
  ticket_id: string;
  state: HumanRequest['state'];
  response: HumanResponse | null;
  node_id: string | null;
  app_id: string | null;
  expires_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface TicketRow {
  id: string;
  request_id: string;
  kind: Ticket['kind'];
  title: string;
  body: string;
  options: string[];
  /** A JSON Schema the answer's data must match. */
  response_schema: Record<string, unknown> | null;
  state: Ticket['state'];
  progress_note: string | null;
  created_at: string;
  updated_at: string;
}

/** The rows as SQLite holds them: JSON text in the JSON columns. */
type StoredRequest = Omit<HumanRequestRow, 'response'> & { response: string | null };
type StoredTicket = Omit<TicketRow, 'options' | 'response_schema'> & {
  options: string;
  response_schema: string | null;
};

const json = (value: unknown) => (value === null ? null : JSON.stringify(value));
const parse = <T>(text: string | null) => (text === null ? null : (JSON.parse(text) as T));

function requestOf(row: StoredRequest): HumanRequestRow {
  return { ...row, response: parse<HumanResponse>(row.response) };
}

function ticketOf(row: StoredTicket): TicketRow {
  return {
    ...row,
    options: JSON.parse(row.options) as string[],
    response_schema: parse<Record<string, unknown>>(row.response_schema),
  };
}

export interface TicketFilter {
  states: readonly Ticket['state'][];
  before?: string | undefined;
  limit: number;
}

export function humanStore(db: Db) {
  const q = {
    insertRequest: db.sqlite.prepare(
      `INSERT INTO human_requests (id, ticket_id, state, response, node_id, app_id, expires_at,
         created_at, updated_at)
       VALUES (:id, :ticket_id, :state, :response, :node_id, :app_id, :expires_at, :created_at,
         :updated_at)`,
    ),
    insertTicket: db.sqlite.prepare(
      `INSERT INTO human_tickets (id, request_id, kind, title, body, options, response_schema,
         state, progress_note, created_at, updated_at)
       VALUES (:id, :request_id, :kind, :title, :body, :options, :response_schema, :state,
         :progress_note, :created_at, :updated_at)`,
    ),
    getRequest: db.sqlite.prepare('SELECT * FROM human_requests WHERE id = ?'),
    getTicket: db.sqlite.prepare('SELECT * FROM human_tickets WHERE id = ?'),
    saveRequest: db.sqlite.prepare(
      `UPDATE human_requests SET ticket_id = :ticket_id, state = :state, response = :response,
         expires_at = :expires_at, updated_at = :updated_at WHERE id = :id`,
    ),
    saveTicket: db.sqlite.prepare(
      `UPDATE human_tickets SET state = :state, progress_note = :progress_note,
         updated_at = :updated_at WHERE id = :id`,
    ),
    listTickets: db.sqlite.prepare(
      `SELECT * FROM human_tickets
       WHERE state IN (SELECT value FROM json_each(:states))
         AND (:before IS NULL OR id < :before)
       ORDER BY id DESC LIMIT :limit`,
    ),
    expired: db.sqlite.prepare(
      `SELECT id FROM human_requests
       WHERE expires_at IS NOT NULL AND expires_at <= ? AND state IN ('open', 'in_progress')`,
    ),
    openOfNode: db.sqlite.prepare(
      `SELECT id FROM human_requests WHERE node_id = ? AND state IN ('open', 'in_progress')`,
    ),
    soonestExpiry: db.sqlite.prepare(
      `SELECT min(expires_at) AS at FROM human_requests
       WHERE expires_at IS NOT NULL AND state IN ('open', 'in_progress')`,
    ),
  };
  return {
    insertRequest(row: HumanRequestRow): void {
      q.insertRequest.run({ ...row, response: json(row.response) });
    },
    insertTicket(row: TicketRow): void {
      q.insertTicket.run({
        ...row,
        options: JSON.stringify(row.options),
        response_schema: json(row.response_schema),
      });
    },
    request(id: string): HumanRequestRow | undefined {
      const row = q.getRequest.get(id) as StoredRequest | undefined;
      return row === undefined ? undefined : requestOf(row);
    },
    ticket(id: string): TicketRow | undefined {
      const row = q.getTicket.get(id) as StoredTicket | undefined;
      return row === undefined ? undefined : ticketOf(row);
    },
    saveRequest(row: HumanRequestRow): void {
      const { id, ticket_id, state, expires_at, updated_at } = row;
      const response = json(row.response);
      q.saveRequest.run({ id, ticket_id, state, response, expires_at, updated_at });
    },
    saveTicket(row: TicketRow): void {
      const { id, state, progress_note, updated_at } = row;
      q.saveTicket.run({ id, state, progress_note, updated_at });
    },
    /** Newest first. */
    tickets(f: TicketFilter): TicketRow[] {
      const rows = q.listTickets.all({
        states: JSON.stringify(f.states),
        before: f.before ?? null,
        limit: f.limit,
      }) as unknown as StoredTicket[];
      return rows.map(ticketOf);
    },
    /** Ids of requests still open whose `expires_at` is at or before `at`. */
    expiredBy(at: string): string[] {
      return (q.expired.all(at) as { id: string }[]).map((r) => r.id);
    },
    /** Ids of the requests node `nodeId` asked that are still open. */
    openOfNode(nodeId: string): string[] {
      return (q.openOfNode.all(nodeId) as { id: string }[]).map((r) => r.id);
    },
    soonestExpiry(): string | null {
      return (q.soonestExpiry.get() as { at: string | null }).at;
    },
  };
}

export type HumanStore = ReturnType<typeof humanStore>;

function content(ticket: TicketRow) {
  return {
    kind: ticket.kind,
    title: ticket.title,
    body: ticket.body,
    options: ticket.options,
    response_schema: ticket.response_schema,
  };
}

export function toHumanRequest(row: HumanRequestRow, ticket: TicketRow): HumanRequest {
  return {
    id: row.id,
    ticket_id: row.ticket_id,
    ...content(ticket),
    state: row.state,
    response: row.response,
    node_id: row.node_id,
    app_id: row.app_id,
    expires_at: row.expires_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** The inbox's camelCase item (SPEC resource map note 4); the row and the request stay snake_case. */
export function toTicket(row: TicketRow, request: HumanRequestRow): Ticket {
  const { response_schema: responseSchema, ...rest } = content(row);
  return {
    id: row.id,
    requestId: row.request_id,
    ...rest,
    responseSchema,
    state: row.state,
    progressNote: row.progress_note,
    asker: { nodeId: request.node_id, appId: request.app_id },
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** A stored response as the inbox answers it (camelCase, like its tickets). */
export function toInboxResponse(response: HumanResponse): InboxResponse {
  const { responded_at: respondedAt, ...rest } = response;
  return { ...rest, respondedAt };
}
