/**
 * The daemon's directory key (DESIGN §5, "Directory"): one ES256 key pair, made on first use and
 * kept in the home (`directory-key.json`, 0600, beside `owner.token`), so the tokens a plugin
 * accepted before a restart still verify after it. Its public half is the JWKS that
 * directory-mode plugins fetch from `<issuer>/.well-known/jwks.json`.
 */
import {
  chmodSync,
  closeSync,
  fsyncSync,
  linkSync,
  openSync,
  readFileSync,
  rmSync,
  writeSync,
} from 'node:fs';
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
import { ApiError } from '../errors.ts';

const ALG = 'ES256';
const DIRECTORY_KEY_FILE = 'directory-key.json';

/** What the file holds: the private JWK (its public half is read from it) and when it was made. */
interface Stored {
  private_jwk: JWK;
  created_at: string;
}

interface Loaded {
  kid: string;
  publicJwk: JWK;
  key: CryptoKey;
}

export interface DirectoryKeys {
  /** The public keys, as `/.well-known/jwks.json` answers them. */
  jwks(): Promise<{ keys: (JWK & { kid: string; alg: string; use: string })[] }>;
  /** A compact JWS of `claims`, its header naming the key. */
  sign(claims: JWTPayload): Promise<string>;
}

export function directoryKeys(home: string): DirectoryKeys {
  const file = join(home, DIRECTORY_KEY_FILE);
  let loaded: Promise<Loaded> | undefined;

  function load(): Promise<Loaded> {
    if (loaded === undefined) {
      const attempt = (async () => parse(readStored(file) ?? (await create(file))))();
      loaded = attempt;
      // A failure is tried again on the next call, not kept: the owner may mend the file.
      attempt.catch(() => {
        if (loaded === attempt) loaded = undefined;
      });
    }
    return loaded;
  }

  return {
    async jwks() {
      const { kid, publicJwk } = await load();
      return { keys: [{ ...publicJwk, kid, alg: ALG, use: 'sig' }] };
    },
    async sign(claims) {
      const { kid, key } = await load();
      return new SignJWT(claims).setProtectedHeader({ alg: ALG, kid, typ: 'JWT' }).sign(key);
    },
  };
}

function unusable(what: string): ApiError {
  // Named by its place in the home, not its path (the JWKS route is public), and never with the
  // file's text or a parser's words about it, which may quote the private key.
  return new ApiError(
    'invalid_state',
    `the directory key (${DIRECTORY_KEY_FILE} in the daemon's home) ${what}: move it away and restart the daemon to make a new one`,
  );
}

function readStored(file: string): Stored | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw unusable(`cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  // A key left readable by others (copied in by hand) is closed again.
  chmodSync(file, 0o600);
  try {
    return JSON.parse(text) as Stored;
  } catch {
    throw unusable('is not JSON');
  }
}

/** The key and its public half, the latter derived from the private JWK so the two always match. */
async function parse(stored: Stored): Promise<Loaded> {
  const jwk = stored?.private_jwk;
  if (
    typeof jwk !== 'object' ||
    jwk === null ||
    jwk.kty !== 'EC' ||
    jwk.crv !== 'P-256' ||
    typeof jwk.x !== 'string' ||
    typeof jwk.y !== 'string' ||
    typeof jwk.d !== 'string'
  ) {
    throw unusable('holds no ES256 private key');
  }
  const publicJwk: JWK = { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y };
  try {
    const key = (await importJWK(jwk, ALG)) as CryptoKey;
    // RFC 7638: a kid that names the key itself, so a plugin's cache can never confuse two keys.
    return { kid: await calculateJwkThumbprint(publicJwk), publicJwk, key };
  } catch {
    throw unusable('holds a key that cannot be used');
  }
}

async function create(file: string): Promise<Stored> {
  const pair = await generateKeyPair(ALG, { extractable: true });
  const stored: Stored = {
    private_jwk: await exportJWK(pair.privateKey),
    created_at: new Date().toISOString(),
  };
  // Written whole and synced under a temporary name, then linked into place: a crash leaves no
  // half-written key, and `link` fails rather than replace a key tokens were signed by (the
  // daemon's lock already makes this process the only writer).
  const temp = `${file}.${process.pid}.tmp`;
  const fd = openSync(temp, 'w', 0o600);
  try {
    writeSync(fd, `${JSON.stringify(stored)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(temp, file);
  } finally {
    rmSync(temp, { force: true });
  }
  return stored;
}
