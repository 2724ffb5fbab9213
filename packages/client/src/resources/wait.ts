/**
 * The client side of the daemon's bounded waits (docs/nodes.md "Bounded long-polls"): the daemon
 * answers `final: false` after at most `WAIT_MAX_S`, so a longer wait is a loop of server waits
 * up to the caller's own deadline, each with an HTTP timeout above its slice.
 */
import { WAIT_MAX_S } from '@svc/protocol';
import type { RequestOptions } from '../core/request-options.ts';
import type { Transport } from '../core/transport.ts';
import { show } from '../internal/options.ts';

export interface WaitParams {
  /** Seconds to wait in all before answering `final: false`; default 300. */
  timeout_s?: number | undefined;
}

const DEFAULT_WAIT_S = 300;
/** Headroom of each HTTP attempt over its server wait, so the daemon answers first. */
const HTTP_MARGIN_MS = 30_000;

/** The wall-clock deadline of a wait of `timeoutS` seconds from now. */
export function deadlineOf(timeoutS: number | undefined): number {
  const total = timeoutS ?? DEFAULT_WAIT_S;
  if (typeof total !== 'number' || !Number.isFinite(total) || total < 0) {
    throw new TypeError(
      `timeout_s must be a non-negative number of seconds; received ${show(total)}`,
    );
  }
  return Date.now() + total * 1000;
}

/** Seconds left until `deadline`, rounded up. */
export function remainingS(deadline: number): number {
  return Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
}

/** The next server wait: what is left, at most what the daemon accepts. */
export function sliceOf(deadline: number): number {
  return Math.min(WAIT_MAX_S, remainingS(deadline));
}

/** Request options for one server wait of `sliceS` seconds. */
export function sliceOptions(sliceS: number, options: RequestOptions = {}): RequestOptions {
  const timeout = Math.max(options.timeout ?? 0, sliceS * 1000 + HTTP_MARGIN_MS);
  return { ...options, timeout };
}

/** Repeats `wait(slice)` until an answer is final or `deadline` (from `deadlineOf`) has passed. */
export async function pollUntilFinal<T extends { final: boolean }>(
  deadline: number,
  options: RequestOptions | undefined,
  wait: (sliceS: number, options: RequestOptions) => PromiseLike<T>,
): Promise<T> {
  for (;;) {
    const slice = sliceOf(deadline);
    const answer = await wait(slice, sliceOptions(slice, options));
    if (answer.final || Date.now() >= deadline) return answer;
  }
}

/** Loops the daemon's bounded `GET url?timeout_s=` wait until final or `params.timeout_s` passes. */
export function waitFor<T extends { final: boolean }>(
  transport: Transport,
  url: string,
  params: WaitParams,
  options: RequestOptions | undefined,
): Promise<T> {
  return pollUntilFinal(deadlineOf(params.timeout_s), options, (timeout_s, opts) =>
    transport.request<T>('GET', url, { query: { timeout_s } }, opts),
  );
}

/**
 * POSTs a start-and-wait body (`create-and-wait`, `parse`) with the first slice of
 * `params.timeout_s`; an answer that is not final goes to `rest` with the seconds left.
 */
export async function startThenWait<T extends { final: boolean }>(
  transport: Transport,
  url: string,
  params: WaitParams,
  options: RequestOptions | undefined,
  rest: (first: T, left: { timeout_s: number }) => Promise<T>,
): Promise<T> {
  const { timeout_s, ...body } = params;
  const deadline = deadlineOf(timeout_s);
  const slice = sliceOf(deadline);
  const first = await transport.request<T>(
    'POST',
    url,
    { body: { ...body, timeout_s: slice } },
    sliceOptions(slice, options),
  );
  return first.final ? first : rest(first, { timeout_s: remainingS(deadline) });
}

/** The `parsed` of a parse answer: the structured result of a done node or run, else null. */
export function parsedOf(subject: { state: string; outcome?: { result?: unknown } | null }) {
  return subject.state === 'done' ? subject.outcome?.result : null;
}
