/**
 * Mail to a node (docs/nodes.md "Mail"): who it is from, delivery (a waiting node queues again),
 * and the broker's claim and acknowledgement of what it read.
 */
import { transition } from '@svc/protocol';
import { ApiError } from '../errors.ts';
import type { Principal } from '../ports.ts';
import { requireMayMail } from './ceiling.ts';
import { type AfterCommit, type NodeDeps, now } from './deps.ts';
import { type MoveDeps, move } from './move.ts';
import type { Mail, MailFrom } from './store/mail.ts';
import type { NodeRow } from './store/nodes.ts';
import { type Caller, seenNode } from './visibility.ts';

const MAIL_CLAIM_DEFAULT = 50;

export function sender(principal: Principal): MailFrom {
  if (principal.kind === 'owner') return { kind: 'owner', id: null };
  if (principal.kind === 'node') return { kind: 'node', id: principal.nodeId };
  return { kind: 'app', id: principal.appId };
}

/**
 * Mail in the caller's transaction that moves nothing: a final node's is read if it is revived
 * or recycled.
 */
export function postMail(
  deps: Pick<NodeDeps, 'store' | 'events'>,
  row: NodeRow,
  from: MailFrom,
  text: string,
): Mail {
  const mail = deps.store.mail.insert(row.id, from, text, now());
  deps.events.record('node.mail', row.id, { node_id: row.id, mail });
  return mail;
}

/** Mail arrived or already waits: a waiting node queues again (a final one refuses: 409). */
export function deliver(
  deps: MoveDeps,
  row: NodeRow,
  from: MailFrom,
  text: string,
  afterCommit: AfterCommit,
): Mail {
  const allowed = transition(row.state, 'message');
  if (!allowed.ok) throw new ApiError('invalid_state', allowed.message);
  const mail = postMail(deps, row, from, text);
  if (row.state === 'waiting') move(deps, row, 'message', {}, afterCommit);
  return mail;
}

/** `deliver` in a transaction of its own, to a node the caller already resolved. */
export function deliverNow(deps: MoveDeps, row: NodeRow, from: MailFrom, text: string): Mail {
  return deps.store.db.transaction((afterCommit) => deliver(deps, row, from, text, afterCommit));
}

/** `nodes.message`. */
export function message(deps: MoveDeps, id: string, text: string, caller: Caller): Mail {
  return deps.store.db.transaction((afterCommit) => {
    const row = seenNode(deps.store, caller.sight, id);
    requireMayMail(row, caller.principal);
    return deliver(deps, row, sender(caller.principal), text, afterCommit);
  });
}

/** `nodes.mail.claim`: the broker takes its unread mail. */
export function claimMail(deps: Pick<NodeDeps, 'store'>, id: string, limit: number | undefined) {
  return deps.store.mail.claim(id, limit ?? MAIL_CLAIM_DEFAULT, now());
}

/** `nodes.mail.acknowledge`: the broker read these. */
export function acknowledgeMail(
  deps: Pick<NodeDeps, 'store'>,
  id: string,
  seqs: readonly number[],
): number {
  return deps.store.mail.acknowledge(id, seqs, now());
}
