/** Answering a request: by the person (request or ticket), or for a question's app. */
import type { Sight } from '../access/visibility.ts';
import { ApiError } from '../errors.ts';
import type { MailFrom } from '../nodes/store/mail.ts';
import { checkResponse, type HumanRespondBody } from './check-response.ts';
import { close } from './close.ts';
import { type HumanDeps, OWNER } from './deps.ts';
import { expireDue } from './expire.ts';
import { onOpenRequest, onOpenTicket } from './guards.ts';
import { requestDto, requireOpen, ticketOf } from './rows.ts';
import type { HumanRequest, HumanRequestRow, Ticket } from './store.ts';

/** Answers an open request in the caller's transaction; the node's mail is `from`. */
function respond(
  deps: HumanDeps,
  request: HumanRequestRow,
  body: HumanRespondBody,
  from = OWNER,
): void {
  requireOpen(`human request ${request.id}`, request.state, 'answered');
  const response = checkResponse(ticketOf(deps.store, request), body);
  close(deps, request, 'answered', 'answered', { response, from });
}

export function respondRequest(
  deps: HumanDeps,
  id: string,
  body: HumanRespondBody,
  sight: Sight,
): HumanRequest {
  return onOpenRequest(deps, id, sight, 'answered', (request) => respond(deps, request, body));
}

export function respondTicket(deps: HumanDeps, id: string, body: HumanRespondBody): Ticket {
  return onOpenTicket(deps, id, 'answered', (request) => respond(deps, request, body));
}

/**
 * `questions.answer`: answers request `id` with the checks and states of `respond`, for a
 * caller the questions service already let through; the node's mail is `from` that caller.
 */
export function answerFor(
  deps: HumanDeps,
  id: string,
  body: HumanRespondBody,
  from: MailFrom,
): HumanRequest {
  expireDue(deps);
  return deps.store.db.transaction((afterCommit) => {
    const request = deps.store.human.request(id);
    if (request === undefined)
      throw new ApiError('not_found', `no human request ${id}`, { field: 'id' });
    respond(deps, request, body, from);
    deps.changed(afterCommit);
    return requestDto(deps.store, request);
  });
}
