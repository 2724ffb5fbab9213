/** Numbers and spans as people read them in a list: 12.3k tokens, $0.0123, 4m 05s. */

export function tokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

export function usd(n: number): string {
  if (n === 0) return '$0';
  return n < 0.01 ? `$${n.toFixed(4)}` : `$${n.toFixed(2)}`;
}

/** Milliseconds as `850ms`, `12s`, `4m 05s`, `2h 03m`. */
export function duration(ms: number): string {
  if (ms < 0) return '—';
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, '0')}m`;
}

/** From `start` to `end`, or to now while it has not ended. */
export function span(start: string | null, end: string | null, now = Date.now()): string {
  if (start === null) return '—';
  return duration((end === null ? now : Date.parse(end)) - Date.parse(start));
}
