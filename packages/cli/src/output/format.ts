/** A cell for a value of unknown shape: `-` for nothing, lists comma-joined, objects as JSON. */
export function cell(value: unknown): string {
  if (value === null || value === undefined || value === '') return '-';
  if (Array.isArray(value)) return value.length === 0 ? '-' : value.map(cell).join(',');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** `3d 4h`, `2h 5m`, `7m 30s`, `12s`: two units at most, enough to read an uptime. */
export function formatDuration(totalSeconds: number): string {
  const s = Math.max(0, Math.floor(totalSeconds));
  const units: [string, number][] = [
    ['d', Math.floor(s / 86_400)],
    ['h', Math.floor((s % 86_400) / 3_600)],
    ['m', Math.floor((s % 3_600) / 60)],
    ['s', s % 60],
  ];
  const first = units.findIndex(([, n]) => n > 0);
  if (first === -1) return '0s';
  return units
    .slice(first, first + 2)
    .filter(([, n]) => n > 0)
    .map(([unit, n]) => `${n}${unit}`)
    .join(' ');
}
