/**
 * Questions (docs/api-v1.md "Questions"): when a node of a run asks the person something
 * (`ask_human`, i.e. a human request made with its node token), the run's app gets a handle on it,
 * `q_…`, created in the same transaction as the request together with a `run.question` event on
 * the run, so `runs.events` and `runs.stream` show it. The question holds no state of its own: its
 * content, state and answer are the request's, and answering it answers the request through the
 * human service's own checks and states, so the inbox and the app can never disagree. Whoever
 * answers first wins; the other gets 409 `invalid_state`.
 */
import { withDeps } from '../with-deps.ts';
import { answerQuestion } from './answer.ts';
import { bindQuestions } from './bind.ts';
import type { QuestionDeps } from './deps.ts';
import { getQuestion } from './get.ts';

export type { QuestionAnswerBody } from './answer.ts';
export type { Question } from './dto.ts';
export type QuestionServiceDeps = QuestionDeps;

export function questionService(deps: QuestionDeps) {
  bindQuestions(deps);
  return {
    get: withDeps(deps, getQuestion),
    answer: withDeps(deps, answerQuestion),
  };
}

export type QuestionService = ReturnType<typeof questionService>;
