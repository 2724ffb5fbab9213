import type { questionSchema } from '@svc/protocol';
import type { z } from 'zod';
import { toHumanRequest } from '../human/store.ts';
import type { Store } from '../store/index.ts';
import type { QuestionRow } from './store.ts';

export type Question = z.output<typeof questionSchema>;

/** A question as the app reads it: its content, state and answer are its request's. */
export function toQuestion(store: Pick<Store, 'human'>, row: QuestionRow): Question {
  const request = store.human.request(row.request_id)!;
  const dto = toHumanRequest(request, store.human.ticket(request.ticket_id)!);
  return {
    id: row.id,
    run_id: row.run_id,
    node_id: row.node_id,
    request_id: row.request_id,
    kind: dto.kind,
    title: dto.title,
    body: dto.body,
    options: dto.options,
    response_schema: dto.response_schema,
    state: dto.state,
    answer: dto.response,
    expires_at: dto.expires_at,
    created_at: row.created_at,
    updated_at: dto.updated_at,
  };
}
