import { UsageError } from '../errors.ts';
import { formatDuration } from '../output/format.ts';

const UNIT_SECONDS: Readonly<Record<string, number>> = {
  s: 1,
  m: 60,
  h: 3_600,
  d: 86_400,
  w: 604_800,
};

/**
 * `90`, `90s`, `15m`, `12h`, `30d`, `2w`, or a sum such as `1h30m` → whole seconds (> 0).
 * @param mostSeconds the daemon's bound: past it is a usage error here (exit 2), not a refusal
 * from the daemon (exit 1)
 */
export function parseDuration(text: string, option: string, mostSeconds?: number): number {
  const seconds = durationSeconds(text, option);
  if (mostSeconds !== undefined && seconds > mostSeconds) {
    const most = formatDuration(mostSeconds).replaceAll(' ', '');
    throw new UsageError(`${option} must be at most ${most} (${mostSeconds}s); received '${text}'`);
  }
  return seconds;
}

function durationSeconds(text: string, option: string): number {
  const trimmed = text.trim();
  if (/^\d+$/.test(trimmed)) return positive(Number(trimmed), text, option);
  const parts = [...trimmed.matchAll(/(\d+)([smhdw])/g)];
  if (parts.length === 0 || parts.map((m) => m[0]).join('') !== trimmed) {
    throw new UsageError(
      `${option} must be a duration such as 90s, 15m, 12h or 30d; received '${text}'`,
    );
  }
  const seconds = parts.reduce(
    (sum, [, n, unit]) => sum + Number(n) * (UNIT_SECONDS[unit ?? ''] ?? 0),
    0,
  );
  return positive(seconds, text, option);
}

function positive(seconds: number, text: string, option: string): number {
  if (seconds <= 0 || !Number.isSafeInteger(seconds)) {
    throw new UsageError(`${option} must be a positive duration; received '${text}'`);
  }
  return seconds;
}
