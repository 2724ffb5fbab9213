/** Percentiles, ratios and the markdown table of `nodes.ts`. */

export function pct(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export function ratio(ours: number, bare: number): string {
  return bare > 0 ? `${fmt(ours / bare, 1)}×` : 'n/a';
}

export function fmt(value: number, digits: number): string {
  return Number.isFinite(value) ? value.toFixed(digits) : 'n/a';
}

export function positive(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

/**
 * One row: the measure, ours, the bare baseline, their ratio, and the target when it
 * sets one (`max`: ours must not exceed it), checked ✔ or ✘.
 */
export function row(
  measure: string,
  ours: number,
  bare: number,
  digits: number,
  max?: number,
): string[] {
  return [
    measure,
    fmt(ours, digits),
    fmt(bare, Math.max(digits, 2)),
    ratio(ours, bare),
    max === undefined ? '' : `≤ ${max} ${target(ours, max)}`,
  ];
}

/** ✔ when `ours` is within `max`, ✘ when not or when it was not measured. */
export function target(ours: number, max: number): string {
  return Number.isFinite(ours) && ours <= max ? '✔' : '✘';
}

export function table(rows: readonly string[][]): string[] {
  return [
    '| measure | svc | bare baseline | ratio | target |',
    '| --- | ---: | ---: | ---: | --- |',
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ];
}
