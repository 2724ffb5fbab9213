import type { Sight } from '../access/visibility.ts';
import { ApiError } from '../errors.ts';
import { type EventDto, type EventLog, toEventDto } from '../events/log.ts';
import type { CustomObjectStore } from './store.ts';
import { seenObject } from './visibility.ts';

/**
 * What one receive stream reads: every pending delivery of a queue, and those after `after`
 * (or, without it, after what was committed at the connect) whatever their state.
 */
export function queueReader(
  { objects, events }: { objects: CustomObjectStore; events: Pick<EventLog, 'lastSeq'> },
  id: string,
  sight: Sight,
  after: number | undefined,
) {
  const row = seenObject(objects, sight, id);
  if (row.receiver_kind !== 'queue') {
    throw new ApiError(
      'invalid_state',
      `custom object ${id} has a ${row.receiver_kind} receiver: the daemon delivers to it, there is no queue to read`,
    );
  }
  const cutoff = after ?? events.lastSeq();
  return {
    read: (from: number, limit: number): EventDto[] =>
      objects.streamPage(row.id, from, cutoff, limit).map(toEventDto),
    /** False once the object is unregistered: the stream ends. */
    alive: () => objects.get(row.id) !== undefined,
  };
}
