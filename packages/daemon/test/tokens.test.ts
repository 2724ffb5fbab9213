import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { eventLog } from '../src/events/log.ts';
import { openStore, type Store } from '../src/store/index.ts';
import { tokenService } from '../src/tokens/service.ts';
import { tempHome } from './helpers.ts';

const stores: Store[] = [];
const homes: string[] = [];
afterAll(() => {
  for (const s of stores) s.db.close();
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

/** A token service over a fresh database, plus a second connection to that database. */
function setup() {
  const home = tempHome();
  homes.push(home);
  // Unbatched: what one connection writes, the other must read at once.
  const open = () => {
    const store = openStore(`${home}/svc.db`, { batch: false });
    stores.push(store);
    return store;
  };
  const store = open();
  return { home, store, open, tokens: tokenService(store, eventLog(store)) };
}

describe('token service: the in-memory map', () => {
  it('revocation takes effect on the next request', () => {
    const { tokens } = setup();
    const { secret, dto } = tokens.mintApp('app', ['svc:llm'], null);
    expect(tokens.authenticate(secret)).toMatchObject({ tokenId: dto.id, scopes: ['svc:llm'] });
    tokens.revoke(dto.id);
    expect(tokens.authenticate(secret)).toBeNull();
  });

  it('a token minted in a transaction that rolls back never authenticates', () => {
    const { store, tokens } = setup();
    let secret = '';
    expect(() =>
      store.db.transaction(() => {
        secret = tokens.mintApp('app', [], null).secret;
        throw new Error('rolled back');
      }),
    ).toThrow('rolled back');
    expect(secret).not.toBe('');
    expect(tokens.authenticate(secret)).toBeNull();
  });

  it('a revocation that rolls back leaves the token working', () => {
    const { store, tokens } = setup();
    const { secret, dto } = tokens.mintApp('app', [], null);
    expect(() =>
      store.db.transaction(() => {
        tokens.revoke(dto.id);
        throw new Error('rolled back');
      }),
    ).toThrow('rolled back');
    expect(tokens.authenticate(secret)?.tokenId).toBe(dto.id);
  });

  it('checks expiry on every request', async () => {
    const { tokens } = setup();
    const expiresAt = new Date(Date.now() + 300).toISOString();
    const { secret } = tokens.mintApp('app', [], expiresAt);
    expect(tokens.authenticate(secret)?.expiresAt).toBe(expiresAt);
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect(tokens.authenticate(secret)).toBeNull();
  });

  it('a restarted daemon knows its live tokens, not its revoked ones', () => {
    const { store, open, tokens } = setup();
    const live = tokens.mintApp('app', ['svc:llm'], null);
    const revoked = tokens.mintApp('app', [], null);
    tokens.revoke(revoked.dto.id);
    store.db.close();
    const reopened = open();
    const restarted = tokenService(reopened, eventLog(reopened));
    expect(restarted.authenticate(live.secret)).toMatchObject({
      tokenId: live.dto.id,
      kind: 'app',
      appId: 'app',
      scopes: ['svc:llm'],
    });
    expect(restarted.authenticate(revoked.secret)).toBeNull();
  });

  it('rotating the owner token retires the old secret at once', () => {
    const { home, tokens } = setup();
    const file = `${home}/owner.token`;
    tokens.ensureOwner(file);
    const first = readFileSync(file, 'utf8').trim();
    expect(tokens.authenticate(first)?.kind).toBe('owner');
    writeFileSync(file, 'svc_owner_tampered\n');
    tokens.ensureOwner(file);
    const second = readFileSync(file, 'utf8').trim();
    expect(tokens.authenticate(first)).toBeNull();
    expect(tokens.authenticate(second)?.kind).toBe('owner');
  });

  it('a token written through another connection is read from the table, never cached', () => {
    const { open, tokens } = setup();
    const other = open();
    const writer = tokenService(other, eventLog(other));
    const { secret, dto } = writer.mintApp('app', ['svc:llm'], null);
    expect(tokens.authenticate(secret)?.tokenId).toBe(dto.id);
    writer.revoke(dto.id);
    expect(tokens.authenticate(secret)).toBeNull();
  });

  it('hands out a principal no handler can change', () => {
    const { tokens } = setup();
    const { secret } = tokens.mintApp('app', ['svc:llm'], null);
    const principal = tokens.authenticate(secret)!;
    expect(() => principal.scopes!.push('svc:act')).toThrow(TypeError);
    expect(() => {
      principal.kind = 'owner';
    }).toThrow(TypeError);
    expect(tokens.authenticate(secret)).toMatchObject({ kind: 'app', scopes: ['svc:llm'] });
  });
});
