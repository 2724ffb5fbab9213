import type { Sight } from '../access/visibility.ts';
import type { Principal } from '../ports.ts';
import type { QuestionDeps } from './deps.ts';
import { type Question, toQuestion } from './dto.ts';
import { visibleQuestion } from './visibility.ts';

export function getQuestion(
  { store, human }: Pick<QuestionDeps, 'store' | 'human'>,
  id: string,
  principal: Principal,
  sight: Sight,
): Question {
  const row = visibleQuestion(store, id, principal, sight);
  // A request whose time is up reads as expired, as on every human route.
  human.expireDue();
  return toQuestion(store, row);
}
