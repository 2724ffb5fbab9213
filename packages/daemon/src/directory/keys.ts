/**
 * The daemon's directory key (DESIGN §5, "Directory"): one ES256 key pair, made on first use and
 * kept in the home (`directory-key.json`, 0600, beside `owner.token`), so the tokens a plugin
 * accepted before a restart still verify after it. Its public half is the JWKS that
 * directory-mode plugins fetch from `<issuer>/.well-known/jwks.json`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type CryptoKey,
  calculateJwkThumbprint,
  exportJWK,
  generateKeyPair,
  importJWK,
  type JWK,
  type JWTPayload,
  SignJWT,
} from 'jose';

const ALG = 'ES256';
const FILE = 'directory-key.json';

interface Stored {
  kid: string;
  private_jwk: JWK;
  public_jwk: JWK;
  created_at: string;
}

export interface DirectoryKeys {
  /** The public keys, as `/.well-known/jwks.json` answers them. */
  jwks(): Promise<{ keys: (JWK & { kid: string; alg: string; use: string })[] }>;
  /** A compact JWS of `claims`, its header naming the key. */
  sign(claims: JWTPayload): Promise<string>;
}

export function directoryKeys(home: string): DirectoryKeys {
  const file = join(home, FILE);
  let loaded: Promise<{ stored: Stored; key: CryptoKey }> | undefined;

  function load() {
    loaded ??= (async () => {
      const stored = readStored(file) ?? (await create(file));
      const key = (await importJWK(stored.private_jwk, ALG)) as CryptoKey;
      return { stored, key };
    })();
    // A failure (an unreadable file) is tried again on the next call, not kept.
    loaded.catch(() => {
      loaded = undefined;
    });
    return loaded;
  }

  return {
    async jwks() {
      const { stored } = await load();
      return { keys: [{ ...stored.public_jwk, kid: stored.kid, alg: ALG, use: 'sig' }] };
    },
    async sign(claims) {
      const { stored, key } = await load();
      return new SignJWT(claims)
        .setProtectedHeader({ alg: ALG, kid: stored.kid, typ: 'JWT' })
        .sign(key);
    },
  };
}

function readStored(file: string): Stored | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return JSON.parse(text) as Stored;
}

async function create(file: string): Promise<Stored> {
  const pair = await generateKeyPair(ALG, { extractable: true });
  const public_jwk = await exportJWK(pair.publicKey);
  const stored: Stored = {
    // RFC 7638: a kid that names the key itself, so a plugin's cache can never confuse two keys.
    kid: await calculateJwkThumbprint(public_jwk),
    private_jwk: await exportJWK(pair.privateKey),
    public_jwk,
    created_at: new Date().toISOString(),
  };
  // `wx`: the daemon's lock makes it the only writer; never overwrite a key tokens were signed by.
  writeFileSync(file, `${JSON.stringify(stored)}\n`, { mode: 0o600, flag: 'wx' });
  return stored;
}
