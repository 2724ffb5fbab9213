import { chmodSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import type { Token } from '@svc/protocol';
import { toTokenDto } from './dto.ts';
import { mintToken, type TokenWriteDeps } from './mint.ts';
import { readSecret } from './secret.ts';

/**
 * The owner token: read from `owner.token` when it still names a live owner row, else minted
 * and written there (mode 0600). So the token survives restarts but a fresh database (or a
 * tampered file) gets a fresh one.
 */
export function ensureOwnerToken(deps: TokenWriteDeps, file: string): Token {
  const existing = readSecret(file);
  const owner = existing === null ? undefined : deps.live.lookup(existing, Date.now());
  if (owner?.kind === 'owner') {
    const row = deps.store.tokens.byId(owner.tokenId);
    if (row !== undefined) {
      chmodSync(file, 0o600); // a file loosened since (`chmod 644`) is tightened again
      return toTokenDto(row);
    }
  }
  const { secret, dto } = mintToken(deps, 'owner', null, null, null);
  // Written whole under a fresh name, then renamed over: a file that was there keeps its mode
  // on a rewrite, and a loose one would hand the new secret to whoever may read it.
  const draft = `${file}.${process.pid}`;
  rmSync(draft, { force: true });
  writeFileSync(draft, `${secret}\n`, { mode: 0o600, flag: 'wx' });
  renameSync(draft, file);
  return dto;
}
