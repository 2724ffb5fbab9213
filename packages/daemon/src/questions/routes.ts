/** The `questions` routes (docs/api-v1.md "Questions"); who sees which is the table's rule. */
import { mount, type Routes } from '../http/route.ts';
import type { QuestionService } from './service.ts';

export interface QuestionRouteDeps {
  questions: QuestionService;
}

export function registerQuestionRoutes(app: Routes, { questions }: QuestionRouteDeps): void {
  mount(app, 'questions.get', (c, { params }) =>
    c.json(questions.get(params.id, c.principal!, c.sight())),
  );
  mount(app, 'questions.answer', (c, { params, body }) =>
    c.json(questions.answer(params.id, body, c.principal!, c.sight())),
  );
}
