/**
 * Times in tables as `gh` and `docker` show them: `just now`, `5 minutes ago`, `in 2 hours`,
 * `3 days ago`. Tables only: `show` and `--json` keep the exact time.
 */

const STEPS: readonly [limitS: number, unitS: number, unit: string][] = [
  [90, 60, 'minute'],
  [45 * 60, 60, 'minute'],
  [90 * 60, 3_600, 'hour'],
  [22 * 3_600, 3_600, 'hour'],
  [36 * 3_600, 86_400, 'day'],
  [25 * 86_400, 86_400, 'day'],
  [45 * 86_400, 30 * 86_400, 'month'],
  [320 * 86_400, 30 * 86_400, 'month'],
];

/** `iso` relative to `now` (ms); text that is no time is returned as it is. */
export function relativeTime(iso: string, now = Date.now()): string {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return iso;
  const seconds = Math.round((now - at) / 1000);
  const span = Math.abs(seconds);
  if (span < 45) return 'just now';
  const [, unitS, unit] = STEPS.find(([limitS]) => span < limitS) ?? [0, 365 * 86_400, 'year'];
  const n = Math.max(1, Math.round(span / unitS));
  const amount = `${n} ${unit}${n === 1 ? '' : 's'}`;
  return seconds >= 0 ? `${amount} ago` : `in ${amount}`;
}

/** A table cell for a time that may be absent: `fallback` for none. */
export function whenCell(iso: string | null | undefined, fallback = '-'): string {
  return iso === null || iso === undefined ? fallback : relativeTime(iso);
}
