/**
 * The client side of the daemon's bounded waits (docs/nodes.md "Bounded long-polls"): the daemon
 * answers `final: false` after at most `WAIT_MAX_S`, so a longer wait is a loop of server waits
 * up to the caller's own deadline, each with an HTTP timeout above its slice. The caller's
 * `timeout` option bounds the whole wait, as it bounds any call: every server wait is cut to end
 * inside it (with headroom for the answer), and the wait answers `final: false` once it is spent.
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

/**
 * The caller's `timeout` (ms) as a bound on a whole wait: when it ends, and the headroom kept for
 * the daemon's answer (a quarter of it, at most `HTTP_MARGIN_MS`). Unbounded without one.
 */
export interface Budget {
  stopAt: number;
  margin: number;
}

export function budgetOf(options: RequestOptions | undefined): Budget {
  const timeout = options?.timeout;
  if (timeout === undefined) return { stopAt: Number.POSITIVE_INFINITY, margin: HTTP_MARGIN_MS };
  return {
    stopAt: Date.now() + timeout,
    margin: Math.min(HTTP_MARGIN_MS, Math.floor(timeout / 4)),
  };
}

/** The next server wait inside both the wait's `deadline` and the caller's `budget`. */
function sliceWithin(deadline: number, budget: Budget): number {
  const room = Math.floor((budget.stopAt - budget.margin - Date.now()) / 1000);
  return Math.max(0, Math.min(sliceOf(deadline), room));
}

/**
 * Request options for one server wait of `sliceS` seconds: an HTTP timeout above the slice, and
 * never past what is left of the caller's budget.
 */
export function sliceOptions(
  sliceS: number,
  options: RequestOptions = {},
  budget: Budget = budgetOf(undefined),
): RequestOptions {
  const above = sliceS * 1000 + HTTP_MARGIN_MS;
  const left = budget.stopAt - Date.now();
  return { ...options, timeout: Math.max(1, Math.min(above, left)) };
}

/** What is left of `budget` as the `timeout` option of the next call (none when unbounded). */
export function remainingOptions(
  options: RequestOptions | undefined,
  budget: Budget,
): RequestOptions | undefined {
  if (!Number.isFinite(budget.stopAt)) return options;
  return { ...options, timeout: Math.max(1, budget.stopAt - Date.now()) };
}

/** Repeats `wait(slice)` until an answer is final, `deadline` has passed or the budget is spent. */
export async function pollUntilFinal<T extends { final: boolean }>(
  deadline: number,
  options: RequestOptions | undefined,
  wait: (sliceS: number, options: RequestOptions) => PromiseLike<T>,
): Promise<T> {
  const budget = budgetOf(options);
  let slice = sliceWithin(deadline, budget);
  for (;;) {
    const answer = await wait(slice, sliceOptions(slice, options, budget));
    if (answer.final) return answer;
    // Nothing left to wait in: the deadline passed or the budget is spent (never a busy loop of
    // zero-second waits).
    slice = sliceWithin(deadline, budget);
    if (slice === 0) return answer;
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
  rest: (first: T, left: { timeout_s: number }, options: RequestOptions | undefined) => Promise<T>,
): Promise<T> {
  const { timeout_s, ...body } = params;
  const deadline = deadlineOf(timeout_s);
  const budget = budgetOf(options);
  const slice = sliceWithin(deadline, budget);
  const first = await transport.request<T>(
    'POST',
    url,
    { body: { ...body, timeout_s: slice } },
    sliceOptions(slice, options, budget),
  );
  if (first.final || sliceWithin(deadline, budget) === 0) return first;
  return rest(first, { timeout_s: remainingS(deadline) }, remainingOptions(options, budget));
}

/**
 * A parse (`nodes.parse`, `runs.parse`): the start-and-wait at `url`, then `wait` on the subject
 * it answered (`key`: `node` or `run`) until final, with the structured result in `parsed`. A
 * run parses as a node does: its outcome is its root node's.
 */
export function startParse<
  K extends 'node' | 'run',
  S extends { id: string; state: string; outcome?: { result?: unknown } | null },
>(
  transport: Transport,
  url: string,
  key: K,
  params: WaitParams,
  options: RequestOptions | undefined,
  wait: (
    id: string,
    left: { timeout_s: number },
    options: RequestOptions | undefined,
  ) => Promise<{ final: boolean } & Record<K, S>>,
): Promise<{ final: boolean; parsed: unknown } & Record<K, S>> {
  type Parsed = { final: boolean; parsed: unknown } & Record<K, S>;
  return startThenWait<Parsed>(transport, url, params, options, async (first, left, rest) => {
    const waited = await wait(first[key].id, left, rest);
    const done = waited[key];
    return { final: waited.final, [key]: done, parsed: parsedOf(done) } as Parsed;
  });
}

/** The `parsed` of a parse answer: the structured result of a done node or run, else null. */
export function parsedOf(subject: { state: string; outcome?: { result?: unknown } | null }) {
  return subject.state === 'done' ? subject.outcome?.result : null;
}
