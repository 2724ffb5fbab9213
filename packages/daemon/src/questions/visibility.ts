/**
 * Who sees a question: the owner and the run's app (`own-app` in protocol's questions table);
 * a node token is refused first, as on every application-facing route.
 */
import { appOf } from '../access/app-caller.ts';
import { type Sight, sees } from '../access/visibility.ts';
import { ApiError } from '../errors.ts';
import type { Principal } from '../ports.ts';
import type { Store } from '../store/index.ts';
import type { QuestionRow } from './store.ts';

/** Question `id` if the caller sees it; else 404, as if it did not exist. */
export function visibleQuestion(
  store: Pick<Store, 'questions'>,
  id: string,
  principal: Principal,
  sight: Sight,
): QuestionRow {
  appOf(principal, 'questions');
  const row = store.questions.get(id);
  if (row === undefined || !sees(sight, row)) {
    throw new ApiError('not_found', `no question ${id}`, { field: 'id' });
  }
  return row;
}
