import type { Sight } from '../access/visibility.ts';
import type { Principal } from '../ports.ts';
import { objectDto } from './object-dto.ts';
import type { CustomObject, CustomObjectStore } from './store.ts';
import { seenObject } from './visibility.ts';

export function retrieveObject(
  objects: CustomObjectStore,
  principal: Principal,
  sight: Sight,
  id: string,
): CustomObject {
  return objectDto(objects, seenObject(objects, sight, id), principal);
}
