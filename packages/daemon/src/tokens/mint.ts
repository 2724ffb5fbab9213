import { newId, type Token } from '@svc/protocol';
import type { EventLog } from '../events/log.ts';
import type { TokenKind } from '../ports.ts';
import type { Store } from '../store/index.ts';
import { toTokenDto } from './dto.ts';
import type { LiveTokens } from './live-tokens.ts';
import { digest, newSecret } from './secret.ts';

export interface TokenWriteDeps {
  store: Pick<Store, 'db' | 'tokens'>;
  events: EventLog;
  live: LiveTokens;
}

/** A new token: its secret, returned here once and never stored, and its DTO. */
export function mintToken(
  { store, events, live }: TokenWriteDeps,
  kind: TokenKind,
  appId: string | null,
  scopes: string[] | null,
  expiresAt: string | null,
  nodeId: string | null = null,
): { secret: string; dto: Token } {
  const secret = newSecret(kind);
  const row = {
    id: newId('token'),
    kind,
    hash: Buffer.from(digest(secret), 'base64'),
    app_id: appId,
    node_id: nodeId,
    scopes,
    created_at: new Date().toISOString(),
    expires_at: expiresAt,
  };
  const dto = store.db.transaction((afterCommit) => {
    // One owner token at a time: minting a new one (a rotation) revokes the old ones.
    if (kind === 'owner') {
      for (const old of store.tokens.revokeKind('owner', row.created_at)) {
        afterCommit(() => live.remove(old.id)); // before the event's wake-up, as in `revokeToken`
        events.record('token.revoked', old.id, toTokenDto(old));
      }
    }
    store.tokens.insert(row);
    const full = { ...row, revoked_at: null, last_used_at: null };
    const dto = toTokenDto(full);
    events.record('token.created', row.id, dto);
    afterCommit(() => live.add(full));
    return dto;
  });
  return { secret, dto };
}
