/** Mail to a run is mail to its root (`runs.message`), and `runs.reply` answers a run that asked. */
import { ApiError } from '../errors.ts';
import { requireMayMail } from '../nodes/ceiling.ts';
import type { Mail } from '../nodes/store/mail.ts';
import type { Caller } from '../nodes/visibility.ts';
import type { RunDeps } from './deps.ts';
import { changeableRun } from './view.ts';

type MailDeps = Pick<RunDeps, 'store' | 'nodes'>;

/** An app's mail must stay inside its token's ceiling (`requireMayMail`), as to the root itself. */
export function messageRun(deps: MailDeps, id: string, text: string, caller: Caller): Mail {
  const { root } = changeableRun(deps.store, caller, id, 'messages');
  requireMayMail(root, caller.principal);
  return deps.nodes.deliver(root, deps.nodes.sender(caller.principal), text);
}

/** An answer to a run that stopped to wait for one (it yielded or was interrupted). */
export function replyRun(deps: MailDeps, id: string, text: string, caller: Caller): Mail {
  const { root } = changeableRun(deps.store, caller, id, 'replies to');
  const waiting = root.waiting_on;
  if (root.state !== 'waiting' || waiting?.for !== 'mail') {
    const why = root.state === 'waiting' ? `waits for ${waiting?.for}` : `is '${root.state}'`;
    throw new ApiError(
      'invalid_state',
      `run ${why}; reply answers a run waiting for a message (use runs.message for mail)`,
    );
  }
  requireMayMail(root, caller.principal);
  return deps.nodes.deliver(root, deps.nodes.sender(caller.principal), text);
}
