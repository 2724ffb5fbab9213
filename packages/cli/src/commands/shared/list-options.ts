/** Options `svc node` and `svc run` share: the `ls` filters and the `watch --after` seq. */
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

/** `--after seq`: the event seq a watch resumes after. */
export function parseAfter(value: string): number {
  if (!/^\d{1,15}$/.test(value))
    throw new UsageError(`--after must be an event seq; received '${value}'`);
  return Number(value);
}
