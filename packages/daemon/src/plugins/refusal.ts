import { ApiError } from '../errors.ts';

/** An endpoint or archive that cannot be installed: the caller's to fix, named by `endpoint`. */
export function unusable(message: string): ApiError {
  return new ApiError('validation_failed', message, { field: 'endpoint' });
}
