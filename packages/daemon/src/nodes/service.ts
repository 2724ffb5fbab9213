/**
 * Nodes (docs/nodes.md): the operations of `src/nodes/`, each in the file named for it, bound to
 * one set of deps so the rest of the daemon calls `ctx.nodes.<operation>(...)`. Operations that
 * show or change a caller's node take a `Caller` (its principal and its route's sight).
 */
import type { NodeAction } from '@svc/protocol';
import type { Logger } from '../lifecycle/logger.ts';
import type { Principal } from '../ports.ts';
import { type CreateBody, createNode, insertNode, type RunPlacement } from './create.ts';
import type { AfterCommit, FinalHook, NodeDeps } from './deps.ts';
import { forkNode } from './fork.ts';
import { idleRuntime } from './idle-runtime.ts';
import { cancelJob, listJobs, listReports } from './jobs.ts';
import { acknowledgeMail, claimMail, deliverNow, message, postMail, sender } from './mail.ts';
import { act, type MoveOptions, move } from './move.ts';
import { outcomeOf, submitFromOutside, submitResult } from './outcome.ts';
import { getNode, listNodes } from './read.ts';
import type { MailFrom } from './store/mail.ts';
import type { NodeRow } from './store/nodes.ts';
import { nodeTimers } from './timers.ts';
import {
  cancelNode,
  failNode,
  interruptNode,
  relaunchRoot,
  reviveAll,
  reviveNode,
} from './transitions.ts';
import { demoteNode, promoteNode } from './tree-moves.ts';
import { recycleNode, updateNode } from './update.ts';
import { type Caller, callerOf, nodeVisibility, seenNode } from './visibility.ts';
import { waitNode, yieldNode } from './waits.ts';

export type NodeServiceDeps = Pick<NodeDeps, 'store' | 'events' | 'profiles' | 'models'> & {
  home?: string | undefined;
  /** Where a timer wake that failed is told. */
  logger?: Pick<Logger, 'error'> | undefined;
};

export function nodeService(made: NodeServiceDeps) {
  let runtime = idleRuntime;
  const finalHooks = new Set<FinalHook>();
  const { logger, ...given } = made;
  const base = { ...given, home: made.home, runtime: () => runtime, finalHooks };
  const timers = nodeTimers({ ...base, logger });
  const deps: NodeDeps = { ...base, timerSet: timers.changed };
  const { store } = deps;
  return {
    /** The due-time source of timer waits, for the daemon's clock. */
    timers,
    /** Plugs in the process side (the supervisor). */
    useRuntime(r: typeof runtime): void {
      runtime = r;
    },
    /**
     * Runs `hook` in the transaction that makes a node final (done, failed, cancelled), so what
     * hangs on the node (its open human requests) ends with it, or not at all.
     */
    onFinal: (hook: FinalHook) => void finalHooks.add(hook),

    // Who sees what, for the services that show nodes by a principal (canvas, focuses, …).
    visibility: (p: Principal) => nodeVisibility(callerOf(store, p, 'tree').sight),
    readVisibility: (p: Principal) => nodeVisibility(callerOf(store, p, 'tree-read').sight),
    visibleRow: (id: string, p: Principal, field = 'id') =>
      seenNode(store, callerOf(store, p, 'tree').sight, id, field),
    readableRow: (id: string, p: Principal, field = 'id') =>
      seenNode(store, callerOf(store, p, 'tree-read').sight, id, field),
    sender,

    create: (body: CreateBody, caller: Caller) => createNode(deps, body, caller),
    /** The create inside a larger transaction (a run's root, a cron's node). */
    insertNode: (body: CreateBody, p: Principal, afterCommit: AfterCommit, run?: RunPlacement) =>
      insertNode(deps, body, callerOf(store, p), afterCommit, run),
    get: (id: string, caller: Caller, field?: string) => getNode(deps, id, caller, field),
    list: (caller: Caller, filter: Parameters<typeof listNodes>[2]) =>
      listNodes(deps, caller, filter),
    update: (id: string, body: Parameters<typeof updateNode>[2], caller: Caller) =>
      updateNode(deps, id, body, caller),
    cancel: (id: string, reason: string | undefined, caller: Caller) =>
      cancelNode(deps, id, reason, caller),
    interrupt: (id: string, reason: string | undefined, caller: Caller) =>
      interruptNode(deps, id, reason, caller),
    revive: (id: string, text: string | undefined, caller: Caller) =>
      reviveNode(deps, id, text, caller),
    reviveAll: (states: Parameters<typeof reviveAll>[1], rootId: string | undefined) =>
      reviveAll(deps, states, rootId),
    relaunchRoot: (id: string, caller: Caller) => relaunchRoot(deps, id, caller),
    fail: (id: string, error: { code: string; message: string }) => failNode(deps, id, error),
    recycle: (id: string, body: Parameters<typeof recycleNode>[2], caller: Caller) =>
      recycleNode(deps, id, body, caller),
    fork: (id: string, body: Parameters<typeof forkNode>[2], caller: Caller) =>
      forkNode(deps, id, body, caller),
    promote: (id: string, caller: Caller) => promoteNode(deps, id, caller),
    demote: (id: string, parentId: string, caller: Caller) =>
      demoteNode(deps, id, parentId, caller),

    message: (id: string, text: string, caller: Caller) => message(deps, id, text, caller),
    /** Mail to a node the caller already resolved (runs.message, runs.reply, human answers). */
    deliver: (row: NodeRow, from: MailFrom, text: string) => deliverNow(deps, row, from, text),
    /** Mail for a final node, inside the caller's transaction: it moves nothing. */
    leaveMail: (row: NodeRow, from: MailFrom, text: string) => postMail(deps, row, from, text),
    claimMail: (id: string, limit: number | undefined) => claimMail(deps, id, limit),
    acknowledgeMail: (id: string, seqs: readonly number[]) => acknowledgeMail(deps, id, seqs),

    outcome: (id: string, caller: Caller) => outcomeOf(deps, id, caller),
    submit: (id: string, body: Parameters<typeof submitResult>[2]) => submitResult(deps, id, body),
    submitFromOutside: (id: string, body: Parameters<typeof submitResult>[2], caller: Caller) =>
      submitFromOutside(deps, id, body, caller),
    yield: (id: string, reason: string | undefined) => yieldNode(deps, id, reason),
    wait: (id: string, body: Parameters<typeof waitNode>[2]) => waitNode(deps, id, body),

    /** Any state change inside the caller's transaction (the broker plane's start, park, …). */
    move: (row: NodeRow, action: NodeAction, opts: MoveOptions, afterCommit: AfterCommit) =>
      move(deps, row, action, opts, afterCommit),
    act: (id: string, action: NodeAction, opts?: MoveOptions) => act(deps, id, action, opts),

    cancelJob: (nodeId: string, jobId: string, caller: Caller) =>
      cancelJob(deps, nodeId, jobId, caller),
    listJobs: (id: string, caller: Caller, limit: number, after: string | undefined) =>
      listJobs(deps, id, caller, limit, after),
    listReports: (id: string, caller: Caller, limit: number, after: number) =>
      listReports(deps, id, caller, limit, after),
    /** The viewer socket of the node's live broker, if the runtime has one. */
    viewerSocket: async (nodeId: string) => (await runtime.viewerSocket?.(nodeId)) ?? null,
  };
}

export type NodeService = ReturnType<typeof nodeService>;
