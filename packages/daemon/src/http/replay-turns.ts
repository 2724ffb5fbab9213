/**
 * Event streams take turns with the rest of the daemon. A stream writes to a socket that takes
 * its bytes at once, so `drain` comes back on the next tick and a reader replaying its backlog
 * never gives the event loop back: 200 readers of 1,500 events each held every other request
 * for seconds. Before each page a stream asks `mayReplay`: within a slice of `SLICE_MS` since
 * the event loop last turned it goes on, in the same synchronous run (no promise between the
 * check and the work, or every stream woken at once would pass it); past it, it waits for
 * `nextTurn`, the loop's next turn after pending I/O (a `GET /v1/status`, say), and asks again.
 * Streams are woken in the order they waited, so they share the slices too. A quiet daemon's
 * live events go on at once.
 */

/** Stream work done before the event loop gets a turn. */
export const SLICE_MS = 5;

/** When the current slice began; `null` when none runs (and no `endSlice` is scheduled). */
let sliceStart: number | null = null;
const waiting: (() => void)[] = [];

function beginSlice(now: number): void {
  sliceStart = now;
  setImmediate(endSlice);
}

/** Runs once the loop has polled for I/O: the waiting streams ask again, in a new slice. */
function endSlice(): void {
  sliceStart = null;
  if (waiting.length === 0) return;
  beginSlice(performance.now());
  for (const resume of waiting.splice(0)) resume();
}

/** Whether a stream may send a page now: within the current slice, or starting one. */
export function mayReplay(): boolean {
  const now = performance.now();
  if (sliceStart === null) {
    beginSlice(now);
    return true;
  }
  return now - sliceStart < SLICE_MS;
}

/** Settles on the event loop's next turn; ask `mayReplay` again then. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => waiting.push(resolve));
}
