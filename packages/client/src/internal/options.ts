// Timers fire at once beyond 2^31 - 1 ms, which would turn a long timeout into none.
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Checks the numeric options shared by the client and every call; a bad one is a `TypeError` naming it. */
export function checkTimeout(value: unknown, where: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !(value > 0) || value > MAX_TIMER_MS) {
    throw new TypeError(
      `${where}.timeout must be a number of milliseconds in (0, ${MAX_TIMER_MS}]; received ${show(value)}`,
    );
  }
  return value;
}

export function checkMaxRetries(value: unknown, where: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw new TypeError(
      `${where}.maxRetries must be a non-negative integer; received ${show(value)}`,
    );
  }
  return value;
}

export function show(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

/**
 * What a call whose route runs for a known bound (a command, a plugin call) adds to that bound
 * for its client timeout: the daemon's answer comes after the bound, never at it.
 */
export const ANSWER_GRACE_MS = 10_000;
