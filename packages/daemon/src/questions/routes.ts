import type { DaemonContext } from '../context.ts';
import type { Call } from '../http/call.ts';
import { mount, type Routes } from '../http/route.ts';
import type { Principal } from '../ports.ts';

/** The `questions` routes (docs/api-v1.md "Questions"). */
export function registerQuestions(app: Routes, ctx: DaemonContext): void {
  const who = (c: Call): Principal => c.principal!;

  mount(app, 'questions.get', (c, { params }) => c.json(ctx.questions.get(params.id, who(c))));
  mount(app, 'questions.answer', (c, { params, body }) =>
    c.json(ctx.questions.answer(params.id, body, who(c))),
  );
}
