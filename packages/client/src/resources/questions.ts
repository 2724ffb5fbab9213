import type { Question, QuestionAnswerBody } from '@svc/protocol';
import type { APIPromise } from '../core/api-promise.ts';
import { id, pathOf } from '../core/path.ts';
import type { RequestOptions } from '../core/request-options.ts';
import { APIResource } from '../core/resource.ts';

/** `{ text?, choice?, data? }`, checked as an inbox answer is. */
export type QuestionAnswerParams = QuestionAnswerBody;

const question = (value: unknown) => id('question', value, 'questionId');

/** `client.questions`: answer what the nodes of your runs ask (their ids come in `run.question` events). */
export class Questions extends APIResource {
  get(questionId: string, options?: RequestOptions): APIPromise<Question> {
    return this._transport.request(
      'GET',
      pathOf('questions.get', { id: question(questionId) }),
      {},
      options,
    );
  }

  /** Answers it; the asking node wakes with the answer. A closed question is 409. */
  answer(
    questionId: string,
    params: QuestionAnswerParams,
    options?: RequestOptions,
  ): APIPromise<Question> {
    return this._transport.request(
      'POST',
      pathOf('questions.answer', { id: question(questionId) }),
      { body: params },
      options,
    );
  }
}
