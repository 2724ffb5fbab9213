import { MAIL_CLAIM_DEFAULT } from '@svc/protocol';
import type { Store } from '../store/index.ts';
import { now } from './deps.ts';

/**
 * Claims what the node's next turn reads (the mail that woke it), in the caller's transaction:
 * it rides along with a claim or a tool result, without a request of its own.
 */
export function claimNextMail(store: Pick<Store, 'mail'>, id: string) {
  return store.mail.claim(id, MAIL_CLAIM_DEFAULT, now());
}
