import type { Token } from '@svc/protocol';
import { ApiError } from '../errors.ts';
import { toTokenDto } from './dto.ts';
import type { TokenWriteDeps } from './mint.ts';

/**
 * Revokes; revoking an already revoked token is a no-op that answers the same DTO. The owner
 * token is rotated instead (delete `owner.token`, restart), so the owner is never locked out.
 */
export function revokeToken(
  { store, events, live }: TokenWriteDeps,
  id: string,
): Token | undefined {
  return store.db.transaction((afterCommit) => {
    if (store.tokens.byId(id)?.kind === 'owner') {
      throw new ApiError(
        'invalid_state',
        'the owner token cannot be revoked; to rotate it, delete owner.token and restart the daemon',
      );
    }
    if (store.tokens.revoke(id, new Date().toISOString())) {
      const dto = toTokenDto(store.tokens.byId(id)!);
      // Before the event's wake-up (after-commit callbacks run in order): a stream or wait
      // woken by it must find the token gone.
      afterCommit(() => live.remove(id));
      events.record('token.revoked', id, dto);
      return dto;
    }
    const row = store.tokens.byId(id);
    return row === undefined ? undefined : toTokenDto(row);
  });
}
