/**
 * Who sees and who manages a custom object. Seeing is the route table's `objects-read` rule (the
 * owner every object, an app its own and those of the apps it may read); managing (unregister,
 * publish, ack) is the owner's or the owning app's alone, so a reader by scope gets 403.
 */
import { type Sight, sees } from '../access/visibility.ts';
import { ApiError } from '../errors.ts';
import type { Principal } from '../ports.ts';
import type { CustomObjectRow, CustomObjectStore } from './store.ts';

/** The object if the caller sees it; else 404, as if it did not exist. */
export function seenObject(objects: CustomObjectStore, sight: Sight, id: string): CustomObjectRow {
  const row = objects.get(id);
  if (row === undefined || !sees(sight, row)) {
    throw new ApiError('not_found', `no custom object ${id}`, { field: 'id' });
  }
  return row;
}

export function manages(principal: Principal, row: CustomObjectRow): boolean {
  return principal.kind === 'owner' || (principal.appId !== null && principal.appId === row.app_id);
}

/** The owner, or a token of the owning app; a reader by scope gets 403, anyone else 404. */
export function managedObject(
  objects: CustomObjectStore,
  principal: Principal,
  sight: Sight,
  id: string,
): CustomObjectRow {
  const row = seenObject(objects, sight, id);
  if (!manages(principal, row)) {
    throw new ApiError(
      'forbidden',
      `custom object ${id} belongs to app '${row.app_id}'; svc:objects:read:app:${row.app_id} lets you read it, not change it`,
    );
  }
  return row;
}
