import type { Sight } from '../access/visibility.ts';
import type { HumanDeps } from './deps.ts';
import { expireDue } from './expire.ts';
import { requestDto } from './rows.ts';
import type { HumanRequest } from './store.ts';
import { visibleRequest } from './visibility.ts';

/** A request the caller sees (expiry first: a request whose time is up reads as expired). */
export function getRequest(deps: HumanDeps, id: string, sight: Sight): HumanRequest {
  expireDue(deps);
  return requestDto(deps.store, visibleRequest(deps.store, id, sight));
}
