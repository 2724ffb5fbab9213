import type { questionAnswerBodySchema } from '@svc/protocol';
import type { z } from 'zod';
import type { Sight } from '../access/visibility.ts';
import { requireMayMail } from '../nodes/ceiling.ts';
import type { Principal } from '../ports.ts';
import type { QuestionDeps } from './deps.ts';
import { type Question, toQuestion } from './dto.ts';
import { visibleQuestion } from './visibility.ts';

export type QuestionAnswerBody = z.output<typeof questionAnswerBodySchema>;

/** Answers the question's request; the node wakes with the answer in its mail. */
export function answerQuestion(
  { store, human, nodes }: Pick<QuestionDeps, 'store' | 'human' | 'nodes'>,
  id: string,
  body: QuestionAnswerBody,
  principal: Principal,
  sight: Sight,
): Question {
  return store.db.transaction(() => {
    const row = visibleQuestion(store, id, principal, sight);
    // The answer arrives as mail and steers the node, as `runs.reply` would: the same rule.
    const asker = store.nodes.get(row.node_id);
    if (asker !== undefined) requireMayMail(asker, principal);
    human.answerFor(row.request_id, body, nodes.sender(principal));
    return toQuestion(store, row);
  });
}
