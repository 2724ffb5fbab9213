import { UsageError } from '../errors.ts';

/**
 * `value` when it is one of `choices`, as that type; `undefined` when the flag was not given;
 * else a usage error naming `flag` and the choices, before any request.
 */
export function parseChoice<T extends string>(
  value: string | undefined,
  choices: readonly T[],
  flag: string,
): T | undefined {
  if (value === undefined) return undefined;
  if ((choices as readonly string[]).includes(value)) return value as T;
  const list = choices.length > 2 ? choices.join(', ') : choices.join(' or ');
  throw new UsageError(`${flag} must be ${list}; received '${value}'`);
}
