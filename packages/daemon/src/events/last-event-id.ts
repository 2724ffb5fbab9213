import { ApiError } from '../errors.ts';

/**
 * The seq in `Last-Event-ID` (what an EventSource sends when it reconnects), or `undefined` when
 * absent (400 when it is not a seq). Every event stream resumes from it: the log's, a node's or
 * run's, a custom object's queue.
 */
export function lastEventId(header: string | undefined): number | undefined {
  if (header === undefined || header === '') return undefined;
  if (!/^\d{1,15}$/.test(header)) {
    throw new ApiError(
      'invalid_request',
      'Last-Event-ID must be an event seq (a non-negative integer)',
      {
        field: 'Last-Event-ID',
        received: header.slice(0, 64),
      },
    );
  }
  return Number(header);
}
