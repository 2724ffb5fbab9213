/** Closing a request without an answer: the person dismisses or declines, the asker cancels. */
import type { Sight } from '../access/visibility.ts';
import type { MailFrom } from '../nodes/store/mail.ts';
import type { Principal } from '../ports.ts';
import { close } from './close.ts';
import { type HumanDeps, OWNER } from './deps.ts';
import { onOpenRequest, onOpenTicket } from './guards.ts';
import type { HumanRequest, Ticket } from './store.ts';

export function dismissRequest(
  deps: HumanDeps,
  id: string,
  reason: string | undefined,
  sight: Sight,
): HumanRequest {
  return onOpenRequest(deps, id, sight, 'dismissed', (request) =>
    close(deps, request, 'dismissed', 'dismissed', { reason, from: OWNER }),
  );
}

export function cancelRequest(
  deps: HumanDeps,
  id: string,
  reason: string | undefined,
  principal: Principal,
  sight: Sight,
): HumanRequest {
  return onOpenRequest(deps, id, sight, 'cancelled', (request) =>
    close(deps, request, 'cancelled', 'cancelled', { reason, from: cancelledBy(deps, principal) }),
  );
}

/** The person declines: the request is dismissed. */
export function declineTicket(deps: HumanDeps, id: string, reason: string | undefined): Ticket {
  return onOpenTicket(deps, id, 'declined', (request) =>
    close(deps, request, 'dismissed', 'declined', { reason, from: OWNER }),
  );
}

function cancelledBy({ nodes }: Pick<HumanDeps, 'nodes'>, principal: Principal): MailFrom | null {
  // The node withdrawing its own request needs no mail about it.
  if (principal.kind === 'node') return null;
  return nodes.sender(principal);
}
