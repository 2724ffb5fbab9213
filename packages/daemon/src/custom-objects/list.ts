import type { Sight } from '../access/visibility.ts';
import type { Principal } from '../ports.ts';
import { objectDto } from './object-dto.ts';
import type { CustomObject, CustomObjectStore } from './store.ts';

/** The objects the caller sees, newest first, `limit` of them after `before`. */
export function listObjects(
  objects: CustomObjectStore,
  principal: Principal,
  sight: Sight,
  q: { before?: string | undefined; limit: number },
): CustomObject[] {
  return objects.list({ sight, ...q }).map((row) => objectDto(objects, row, principal));
}
