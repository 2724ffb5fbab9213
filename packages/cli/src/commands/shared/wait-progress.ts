/**
 * `svc node wait` and `svc run wait` (and `create|start --wait`): the daemon's wait for an
 * outcome, with the subject's events streamed to stderr as progress meanwhile.
 */
import type { NodeEvent, Stream, Svc } from '@svc/client';
import type { Context } from '../../context.ts';
import { EXIT } from '../../errors.ts';
import type { Palette } from '../../output/color.ts';
import { drain, feed } from '../../output/event-feed.ts';
import { stateText } from '../../output/node-view.ts';

export interface WaitTarget<A extends { final: boolean }, S extends { state: string }> {
  /** The events shown as progress. */
  stream(client: Svc, signal: AbortSignal): Stream<NodeEvent>;
  /** The event that ends the progress: the subject's outcome. */
  isOutcome(event: NodeEvent): boolean;
  /** The daemon's wait, `{ final, … }`. */
  wait(client: Svc): Promise<A>;
  /** The node or run inside the answer. */
  subject(answer: A): S;
  render(subject: S, colors: Palette): string;
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
  // Progress only: the wait's answer or error is the command's. A stream that fails first (a
  // node that does not exist, a daemon gone) would otherwise reject with nobody awaiting it
  // yet, and Node would end the process on it with a stack trace; the wait fails the same way.
  const progress = ctx.out.json
    ? Promise.resolve()
    : feed(ctx, target.stream(client, controller.signal), target.isOutcome, {
        signal: controller.signal,
        toStderr: true,
      }).catch(() => {});
  try {
    const answer = await target.wait(client);
    // The stream may still be delivering the last events before the outcome.
    if (answer.final) await drain(progress);
    const subject = target.subject(answer);
    ctx.out.result(answer, (colors) =>
      answer.final
        ? target.render(subject, colors)
        : `${id} is still ${stateText(subject.state, colors)} after ${timeout}s`,
    );
    return answer.final && subject.state === 'done' ? EXIT.ok : EXIT.error;
  } finally {
    controller.abort();
    await progress;
  }
}
