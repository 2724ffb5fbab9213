/** A ticket's content, checked as a create or a replace gives it. */
import { APPROVAL_OPTIONS, type humanRequestCreateBodySchema } from '@svc/protocol';
import type { z } from 'zod';
import { ApiError } from '../errors.ts';
import { compileUsable } from '../nodes/output-schema.ts';
import type { Store } from '../store/index.ts';
import type { TicketRow } from './store.ts';

export type HumanCreateBody = z.output<typeof humanRequestCreateBodySchema>;

export type TicketContent = Pick<
  TicketRow,
  'kind' | 'title' | 'body' | 'options' | 'response_schema'
>;

/** The checked content of a ticket: kind, options and a schema that compiles. */
export function content(body: HumanCreateBody): TicketContent {
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
    options,
    response_schema: body.response_schema ?? null,
  };
}

/** Inserts an open ticket of `requestId` with `checked` content. */
export function newTicket(
  store: Pick<Store, 'human'>,
  id: string,
  requestId: string,
  checked: TicketContent,
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
