import { UsageError } from '../errors.ts';

/** A flag's value as a number above 0 (whole when `integer`); else a usage error naming it. */
export function positive(value: string, flag: string, integer: boolean): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    throw new UsageError(
      `${flag} must be a positive ${integer ? 'whole ' : ''}number; received '${value}'`,
    );
  }
  return n;
}
