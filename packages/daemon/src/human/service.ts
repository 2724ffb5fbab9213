/**
 * Human requests and the inbox (docs/api-v1.md "Human requests and the inbox"). A request is the
 * asker's handle; its current ticket is what the person sees. Every change writes the request,
 * the ticket and a `human.request` event in one transaction. When a node's request closes
 * (answered, dismissed, cancelled by someone else, expired) the node gets mail saying so, which
 * wakes it if it waits: the model reads the answer at its next turn.
 *
 * Expiry is checked lazily at the start of every call, and by the clock (`expiry.ts`) for the
 * soonest `expires_at`, so a node waiting on a request that expires unread still wakes. The
 * operations are one a file beside this one; this assembles them into the object the daemon
 * calls, with the state they share: who listens for changes and for creates.
 */
import { withDeps } from '../with-deps.ts';
import { answerFor, respondRequest, respondTicket } from './answer.ts';
import { createRequest } from './create.ts';
import type { HumanDeps } from './deps.ts';
import { expireDue } from './expire.ts';
import { getRequest } from './get.ts';
import { getTicket, listHistory, listInbox, ticketResponse } from './inbox.ts';
import { cancelWithNode } from './node-final.ts';
import { markProgress } from './progress.ts';
import { replaceRequest } from './replace.ts';
import type { HumanRequestRow, TicketRow } from './store.ts';
import { cancelRequest, declineTicket, dismissRequest } from './withdraw.ts';

export type { HumanRespondBody } from './check-response.ts';
export type { HumanCreateBody } from './content.ts';

export type HumanServiceDeps = Omit<HumanDeps, 'changed' | 'created'>;

export function humanService(made: HumanServiceDeps) {
  const listeners = new Set<() => void>();
  const created: ((row: HumanRequestRow, ticket: TicketRow) => void)[] = [];
  const deps: HumanDeps = {
    ...made,
    created,
    // The clock re-arms once a change commits.
    changed: (afterCommit) =>
      afterCommit(() => {
        for (const listener of listeners) listener();
      }),
  };
  cancelWithNode(deps);
  return {
    /** Calls `listener` after every commit that changed a request; returns the unsubscribe. */
    onChange(listener: () => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    /** The soonest `expires_at` of a request still open, or `null`. */
    soonestExpiry: (): string | null => made.store.human.soonestExpiry(),
    /**
     * Called in the transaction that creates a request, after its row, ticket and event: the
     * questions of an app's runs are bound to their requests there (`questions/`).
     */
    onCreated(hook: (row: HumanRequestRow, ticket: TicketRow) => void): void {
      created.push(hook);
    },
    expireDue: (nowMs?: number) => expireDue(deps, nowMs),
    create: withDeps(deps, createRequest),
    get: withDeps(deps, getRequest),
    replace: withDeps(deps, replaceRequest),
    respond: withDeps(deps, respondRequest),
    answerFor: withDeps(deps, answerFor),
    dismiss: withDeps(deps, dismissRequest),
    cancel: withDeps(deps, cancelRequest),
    inbox: withDeps(deps, listInbox),
    history: withDeps(deps, listHistory),
    ticket: withDeps(deps, getTicket),
    respondTicket: withDeps(deps, respondTicket),
    progress: withDeps(deps, markProgress),
    decline: withDeps(deps, declineTicket),
    response: withDeps(deps, ticketResponse),
  };
}

export type HumanService = ReturnType<typeof humanService>;
