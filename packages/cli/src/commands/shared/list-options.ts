/** Options `svc node` and `svc run` share: the `ls` filters, `--after` seqs and `--kinds`. */
import type { Node } from '@svc/client';
import { NODE_STATES } from '@svc/protocol';
import { UsageError } from '../../errors.ts';
import { positive } from '../../parse/number.ts';

/** `--state a,b`: each must be a node state (runs share them). */
export function parseStates(value: string | undefined): Node['state'][] | undefined {
  const states = value?.split(',');
  for (const s of states ?? []) {
    if (!(NODE_STATES as readonly string[]).includes(s)) {
      throw new UsageError(`--state must be among ${NODE_STATES.join(', ')}; received '${s}'`);
    }
  }
  return states as Node['state'][] | undefined;
}

/** `--limit n`: 1 to 200, the daemon's page bound. */
export function parseLimit(value: string): number {
  const limit = positive(value, '--limit', true);
  if (limit > 200) throw new UsageError(`--limit must be at most 200; received '${value}'`);
  return limit;
}

/** `--after seq`: the event seq a watch or a page resumes after (a report's seq: `what`). */
export function parseAfter(value: string, what = 'an event seq'): number {
  if (!/^\d{1,15}$/.test(value))
    throw new UsageError(`--after must be ${what}; received '${value}'`);
  return Number(value);
}

/** `--kinds a,b`: event kinds (the daemon's `?kinds=` pattern and length). */
export function parseKinds(value: string | undefined): string | undefined {
  if (
    value !== undefined &&
    (value.length > 2000 || !/^[a-z0-9._-]+(,[a-z0-9._-]+)*$/.test(value))
  ) {
    throw new UsageError(`--kinds must be comma-separated event kinds; received '${value}'`);
  }
  return value;
}
