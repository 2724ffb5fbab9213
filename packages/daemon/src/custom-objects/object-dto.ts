import type { Principal } from '../ports.ts';
import {
  type CustomObject,
  type CustomObjectRow,
  type CustomObjectStore,
  toCustomObject,
} from './store.ts';
import { manages } from './visibility.ts';

/**
 * The object as `principal` may read it. A webhook URL often carries a secret in its path or
 * query, so a reader by scope (`svc:objects:read:app:<id>`) sees only its origin.
 */
export function objectDto(
  objects: CustomObjectStore,
  row: CustomObjectRow,
  principal: Principal,
): CustomObject {
  const object = toCustomObject(row, objects.pendingCount(row.id));
  if (object.receiver.kind !== 'url' || manages(principal, row)) return object;
  return {
    ...object,
    receiver: { ...object.receiver, url: new URL(object.receiver.url).origin },
  };
}
