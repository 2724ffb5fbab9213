/**
 * The `questions` routes (docs/api-v1.md "Questions"), part of the application-facing API: the
 * app whose run asked (and the owner) reads and answers (`own-app`); anyone else gets 404.
 */
import {
  questionAnswerBodySchema,
  questionParamsSchema,
  questionSchema,
} from '../schemas/questions.ts';
import type { RouteDef } from './route-def.ts';

const TOKEN = { kind: 'token' } as const;

export const questionsRoutes = [
  {
    id: 'questions.get',
    method: 'GET',
    path: '/v1/questions/{id}',
    auth: TOKEN,
    summary: 'A question a node of one of your runs asked, with the answer once there is one',
    params: questionParamsSchema,
    response: questionSchema,
    errors: ['forbidden'],
    visibility: 'own-app',
  },
  {
    id: 'questions.answer',
    method: 'POST',
    path: '/v1/questions/{id}/answer',
    auth: TOKEN,
    summary:
      'Answer a question: its human request is answered (the inbox checks apply) and the node wakes with the answer',
    params: questionParamsSchema,
    body: questionAnswerBodySchema,
    response: questionSchema,
    errors: ['forbidden', 'invalid_state'],
    visibility: 'own-app',
  },
] as const satisfies readonly RouteDef[];
