/**
 * Questions (docs/api-v1.md "Questions"): when a node of a run asks the person something
 * (`ask_human`, i.e. a human request made with its node token), the run's app gets a handle on it,
 * `q_…`, created in the same transaction as the request together with a `run.question` event on
 * the run, so `runs.events` and `runs.stream` show it. The question holds no state of its own: its
 * content, state and answer are the request's, and answering it answers the request through the
 * human service's own checks and states, so the inbox and the app can never disagree. Whoever
 * answers first wins; the other gets 409 `invalid_state`.
 */
import { newId, type Question, type QuestionAnswerBody } from '@svc/protocol';
import { appOf, sees } from '../access/app-caller.ts';
import { ApiError } from '../errors.ts';
import type { Principal } from '../ports.ts';
import { toHumanRequest } from '../store/human.ts';
import type { Store } from '../store/index.ts';
import type { QuestionRow } from '../store/questions.ts';
import type { EventLog } from './events.ts';
import type { HumanService } from './human.ts';
import { requireMayMail } from './node-ceiling.ts';
import type { NodeService } from './nodes.ts';

export type { Question, QuestionAnswerBody };

export interface QuestionServiceDeps {
  store: Store;
  events: EventLog;
  human: Pick<HumanService, 'onCreated' | 'answerFor' | 'expireDue'>;
  nodes: Pick<NodeService, 'sender'>;
}

export function questionService({ store, events, human, nodes }: QuestionServiceDeps) {
  human.onCreated((request, ticket) => {
    if (request.node_id === null) return;
    const runId = store.nodes.get(request.node_id)?.run_id ?? null;
    const run = runId === null ? undefined : store.runs.get(runId);
    if (run === undefined) return;
    const row: QuestionRow = {
      id: newId('question'),
      request_id: request.id,
      run_id: run.id,
      node_id: request.node_id,
      app_id: run.app_id,
      created_at: request.created_at,
    };
    store.questions.insert(row);
    events.record('run.question', run.id, {
      run_id: run.id,
      question_id: row.id,
      node_id: row.node_id,
      request_id: request.id,
      kind: ticket.kind,
      title: ticket.title,
    });
  });

  /** The run's app and the owner see a question; anyone else gets 404, as if it did not exist. */
  function visible(id: string, principal: Principal): QuestionRow {
    appOf(principal, 'questions');
    const row = store.questions.get(id);
    if (row === undefined || !sees(principal, row.app_id)) {
      throw new ApiError('not_found', `no question ${id}`, { field: 'id' });
    }
    return row;
  }

  function toQuestion(row: QuestionRow): Question {
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

  return {
    get(id: string, principal: Principal): Question {
      const row = visible(id, principal);
      // A request whose time is up reads as expired, as on every human route.
      human.expireDue();
      return toQuestion(row);
    },

    /** Answers the question's request; the node wakes with the answer in its mail. */
    answer(id: string, body: QuestionAnswerBody, principal: Principal): Question {
      return store.db.transaction(() => {
        const row = visible(id, principal);
        // The answer arrives as mail and steers the node, as `runs.reply` would: the same rule.
        const asker = store.nodes.get(row.node_id);
        if (asker !== undefined) requireMayMail(asker, principal);
        human.answerFor(row.request_id, body, nodes.sender(principal));
        return toQuestion(row);
      });
    },
  };
}

export type QuestionService = ReturnType<typeof questionService>;
