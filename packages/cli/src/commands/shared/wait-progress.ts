/**
 * `svc node wait`, `svc run wait`, `svc node|run parse` (and `create|start --wait`): the daemon's
 * wait for an outcome, with the subject's events streamed to stderr as progress meanwhile. A wait
 * stops early when the node can no longer end without someone acting (it waits for mail, a
 * person's answer, or a raised budget): the command says so, names the fix and exits 4.
 */
import type { Node, NodeEvent, Svc } from '@svc/client';
import type { Context } from '../../context.ts';
import { EXIT } from '../../errors.ts';
import type { Palette } from '../../output/color.ts';
import { drain, feed } from '../../output/event-feed.ts';
import { stateText } from '../../output/node-view.ts';

export interface WaitTarget<A extends { final: boolean }, S extends { state: string }> {
  /** The events shown as progress. */
  stream(client: Svc, signal: AbortSignal): AsyncIterable<NodeEvent>;
  /** The event that ends the progress: the subject's outcome. */
  isOutcome(event: NodeEvent): boolean;
  /** The node whose own waits decide whether the subject can still end (a run's root). */
  node(client: Svc): Promise<string>;
  /** The daemon's wait, `{ final, … }`. */
  wait(client: Svc, signal: AbortSignal): Promise<A>;
  /** The node or run inside the answer. */
  subject(answer: A): S;
  /** The answer a wait that stopped early prints under `--json` (`final: false`). */
  stopped(client: Svc, signal: AbortSignal): Promise<A>;
  render(subject: S, colors: Palette): string;
  /** The command that waits on, e.g. `svc node wait nd_…`. */
  again: string;
  /** Prints a final answer and answers the exit code; default: `render`, 0 only when done. */
  print?(ctx: Context, answer: A, subject: S): number;
}

/** Why a node cannot end without someone acting, and what that someone does; `null`: it can. */
export interface Blocked {
  for: 'mail' | 'human' | 'budget';
  reason: string;
  fix: string;
}

export function blockedBy(node: Node): Blocked | null {
  if (node.state !== 'waiting' || node.waiting_on === null) return null;
  const reason = node.state_reason ?? `waiting for ${node.waiting_on.for}`;
  switch (node.waiting_on.for) {
    case 'mail':
      return {
        for: 'mail',
        reason,
        fix: `send it a message (svc node message ${node.id} TEXT)`,
      };
    case 'human':
      return {
        for: 'human',
        reason,
        fix: `answer its request (svc human respond ${node.waiting_on.request_id} --text TEXT)`,
      };
    case 'budget':
      return {
        for: 'budget',
        reason,
        fix: `raise the budget it reached (svc node update ${node.id} --${node.waiting_on.budget.replaceAll('_', '-')} N)`,
      };
    default:
      return null; // children and timers end by themselves
  }
}

/** Prints the answer for `id` after `timeout` seconds at most; exit 0 only for a done subject. */
export async function waitWithProgress<A extends { final: boolean }, S extends { state: string }>(
  ctx: Context,
  id: string,
  timeout: number,
  target: WaitTarget<A, S>,
): Promise<number> {
  const client = await ctx.client();
  const controller = new AbortController();
  const { signal } = controller;
  const nodeId = await target.node(client);
  let onBlocked: (found: { node: Node; blocked: Blocked }) => void = () => {};
  const blocked = new Promise<{ node: Node; blocked: Blocked }>((resolve) => {
    onBlocked = resolve;
  });
  // One look at a time, each after the state change that asked for it; a failed look (the node
  // gone, the daemon away) leaves the answer to the wait, which fails the same way.
  let looking = Promise.resolve();
  const look = () => {
    looking = looking
      .then(async () => {
        const node = await client.nodes.retrieve(nodeId, { signal }).catch(() => null);
        const why = node === null ? null : blockedBy(node);
        if (node === null || why === null) return;
        // Mail can come from another node of the tree (a child's `message`): while one can
        // still act, the wait goes on; the end of each is looked at again (`waitsNow`).
        if (why.for === 'mail' && (await othersLive(client, node, signal))) return;
        onBlocked({ node, blocked: why });
      })
      .catch(() => {});
  };
  look();
  // Progress only: the wait's answer or error is the command's. A stream that fails first (a
  // node that does not exist, a daemon gone) would otherwise reject with nobody awaiting it
  // yet, and Node would end the process on it with a stack trace; the wait fails the same way.
  const progress = feed(ctx, target.stream(client, signal), target.isOutcome, {
    signal,
    toStderr: true,
    quiet: ctx.out.json,
    onEvent: (event) => {
      if (waitsNow(event, nodeId)) look();
    },
  }).catch(() => {});
  try {
    const first = await Promise.race([
      target.wait(client, signal).then((answer) => ({ answer })),
      blocked.then((found) => ({ found })),
    ]);
    if ('found' in first) return await printBlocked(ctx, target, client, signal, first.found);
    const { answer } = first;
    // The stream may still be delivering the last events before the outcome.
    if (answer.final) await drain(progress);
    const subject = target.subject(answer);
    if (answer.final && target.print !== undefined) return target.print(ctx, answer, subject);
    ctx.out.result(answer, (colors) =>
      answer.final
        ? target.render(subject, colors)
        : `${id} is still ${stateText(subject.state, colors)} after ${timeout}s; wait on with: ${target.again}`,
    );
    return answer.final && subject.state === 'done' ? EXIT.ok : EXIT.error;
  } finally {
    controller.abort();
    await progress;
    await looking;
  }
}

/**
 * A state change worth a look: `nodeId` starts waiting, or another node of its tree ends (the
 * last one that could have sent it mail).
 */
function waitsNow(event: NodeEvent, nodeId: string): boolean {
  if (event.kind !== 'node.state' && event.kind !== 'run.state') return false;
  const p = event.payload as { node_id?: string; to?: string };
  if (p.node_id === nodeId) return p.to === 'waiting';
  return p.to === 'done' || p.to === 'failed' || p.to === 'cancelled';
}

/** Whether a node of `node`'s tree other than itself may still act (queued, running, waiting). */
async function othersLive(client: Svc, node: Node, signal: AbortSignal): Promise<boolean> {
  const page = await client.nodes
    .list({ root_id: node.root_id, state: ['queued', 'running', 'waiting'], limit: 2 }, { signal })
    .catch(() => null);
  // Unknown (the list failed): keep waiting rather than stop on a guess.
  return page === null || page.data.some((n) => n.id !== node.id);
}

async function printBlocked<A extends { final: boolean }, S extends { state: string }>(
  ctx: Context,
  target: WaitTarget<A, S>,
  client: Svc,
  signal: AbortSignal,
  { node, blocked }: { node: Node; blocked: Blocked },
): Promise<number> {
  const answer = ctx.out.json ? await target.stopped(client, signal) : null;
  ctx.out.result(
    { ...answer, blocked: { node_id: node.id, ...blocked } },
    (colors) =>
      `${node.id} is ${stateText(node.state, colors)}: ${blocked.reason}. It will not end unless someone acts: ${blocked.fix}, then wait again (${target.again}).`,
  );
  return EXIT.needsAction;
}
