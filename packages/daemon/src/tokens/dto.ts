import type { Token } from '@svc/protocol';
import type { TokenRow } from './store.ts';

/** A token as the API shows it: never its hash. */
export function toTokenDto(row: TokenRow): Token {
  return {
    id: row.id,
    kind: row.kind,
    app_id: row.app_id,
    scopes: row.scopes,
    created_at: row.created_at,
    expires_at: row.expires_at,
    revoked_at: row.revoked_at,
    last_used_at: row.last_used_at,
  };
}
