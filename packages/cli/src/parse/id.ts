import { ID_PREFIXES, type IdKind, isId } from '@svc/protocol';
import { UsageError } from '../errors.ts';

/** `value` when it is an id of `kind`; else a usage error naming `what`, before any request. */
export function parseId(kind: IdKind, value: string, what = `${kind} id`): string {
  if (!isId(kind, value)) {
    throw new UsageError(
      `${what} must be ${ID_PREFIXES[kind]} followed by 26 characters; received '${value}'`,
    );
  }
  return value;
}
