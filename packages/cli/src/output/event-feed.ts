/**
 * Live progress of `svc node watch|wait` and `svc run watch|wait`: prints each event of a node or
 * run stream (NDJSON under `--json`) until `isEnd` says the watched thing is final, or `signal`
 * aborts (the wait answered, or Ctrl-C).
 */
import type { NodeEvent } from '@svc/client';
import type { Context } from '../context.ts';
import { renderEvent } from './node-view.ts';

export async function feed(
  ctx: Context,
  stream: AsyncIterable<NodeEvent>,
  isEnd: (event: NodeEvent) => boolean,
  opts: {
    signal: AbortSignal;
    toStderr?: boolean;
    /** Print nothing (`--json`): the events only reach `onEvent`. */
    quiet?: boolean;
    onEvent?: (event: NodeEvent) => void;
  },
): Promise<void> {
  try {
    for await (const event of stream) {
      opts.onEvent?.(event);
      if (opts.quiet) {
        // watched, not shown
      } else if (opts.toStderr) {
        ctx.out.note(renderEvent(event, ctx.out.noteColors));
      } else {
        ctx.out.record(event, (colors) => renderEvent(event, colors));
      }
      if (isEnd(event)) break;
    }
  } catch (err) {
    if (!opts.signal.aborted) throw err;
  }
}

/** How long a finished wait lets its progress stream catch up to the outcome event. */
const DRAIN_MS = 2_000;

/** Waits for `progress` to reach its end, at most `DRAIN_MS`. */
export function drain(progress: Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const cap = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, DRAIN_MS);
  });
  return Promise.race([progress, cap]).finally(() => clearTimeout(timer));
}
