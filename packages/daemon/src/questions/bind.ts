import { newId } from '@svc/protocol';
import type { QuestionDeps } from './deps.ts';
import type { QuestionRow } from './store.ts';

/**
 * Binds each request a node of a run asks to a new question of the run's app, with a
 * `run.question` event on the run, in the transaction that creates the request.
 */
export function bindQuestions({ store, events, human }: Omit<QuestionDeps, 'nodes'>): void {
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
}
