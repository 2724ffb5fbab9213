import type { humanRespondBodySchema } from '@svc/protocol';
import type { z } from 'zod';
import { ApiError } from '../errors.ts';
import { compileUsable } from '../nodes/output-schema.ts';
import { iso } from './deps.ts';
import type { HumanResponse, TicketRow } from './store.ts';

export type HumanRespondBody = z.output<typeof humanRespondBodySchema>;

/** Checks an answer against the ticket it answers; a refusal (422) names the field. */
export function checkResponse(ticket: TicketRow, body: HumanRespondBody): HumanResponse {
  const options = ticket.options;
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
    const failure = compileUsable(ticket.response_schema, 'response_schema')(body.data);
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
  const noData = body.data === undefined || (body.data === null && ticket.response_schema === null);
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
