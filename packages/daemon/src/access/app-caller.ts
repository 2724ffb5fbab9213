/**
 * Who may call the application-facing routes that own resources (uploads, attachments, shares,
 * questions; SPEC resource map, note 1): the owner and apps. A node token is refused: what it
 * made would outlive its broker, and a node has the files and human tools for its own work.
 */
import { ApiError } from '../errors.ts';
import type { Principal } from '../ports.ts';

/** `null` for the owner, else the app's id; a node token is 403 `forbidden`. */
export function appOf(principal: Principal, route: string): string | null {
  if (principal.kind === 'owner') return null;
  if (principal.kind === 'app' && principal.appId !== null) return principal.appId;
  throw new ApiError(
    'forbidden',
    `${route} takes the owner's token or an app's, not a ${principal.kind} token`,
  );
}

/** The owner sees everything; an app what carries its id. */
export function sees(principal: Principal, owner: string | null): boolean {
  return principal.kind === 'owner' || (principal.kind === 'app' && principal.appId === owner);
}
