import { ENV_NAME_PATTERN, isName } from '@svc/protocol';
import { UsageError } from '../errors.ts';

/** `value` when it is a name (a profile's, a plugin's); else a usage error naming `what`. */
export function parseName(value: string, what: string): string {
  if (!isName(value)) {
    throw new UsageError(
      `${what} must be a lowercase letter then up to 62 of a-z, 0-9, -; received '${value}'`,
    );
  }
  return value;
}

/** `value` when it is an environment variable's name; else a usage error naming `what`. */
export function parseEnvName(value: string, what: string): string {
  if (!ENV_NAME_PATTERN.test(value)) {
    throw new UsageError(
      `${what} must be a letter or _, then letters, digits or _; received '${value}'`,
    );
  }
  return value;
}
