/**
 * The daemon's directory keys (DESIGN §5, "Directory"): ES256 key pairs, made on first use and
 * kept in the home (`directory-key.json`, 0600, beside `owner.token`), so the tokens a plugin
 * accepted before a restart still verify after it. Their public halves are the JWKS that
 * directory-mode plugins fetch from `<issuer>/.well-known/jwks.json`.
 *
 * Rotatable (DESIGN: "an ES256 key pair (rotatable)"). The JWKS publishes the key that signs and
 * the next one, made ahead: a plugin fetches its key set at most once per cooldown (the kit's
 * 30 s) even when a token names a `kid` it does not know, so a key first published at the
 * rotation would be refused for that long; the next key has been published since the last
 * rotation, so every plugin that fetched the set since then already holds it. The replaced key
 * stays published for `RETIRING_MS`, until every token it signed has expired. After a leak,
 * `revokePrevious` makes two new keys and publishes nothing else: the leaked file held both.
 */
import {
  chmodSync,
  closeSync,
  fsyncSync,
  linkSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
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
/**
 * How long a replaced key stays published: twice a token's 5-minute life, so every token signed
 * with it expires first, with room for a plugin's clock running behind.
 */
export const RETIRING_MS = 10 * 60_000;

/** A private key as the file holds it. */
export interface StoredKey {
  private_jwk: JWK;
  created_at: string;
}

/**
 * What the file holds: the key that signs (as the file of one key had it, so older homes read
 * the same), the next one, and the public halves of those replaced and still published.
 */
interface Stored extends StoredKey {
  next?: StoredKey;
  retired?: RetiredKey[];
}

interface RetiredKey {
  public_jwk: JWK;
  created_at: string;
  retired_at: string;
  until: string;
}

interface Loaded {
  active: Usable;
  next: Usable;
  retired: (RetiredKey & { kid: string })[];
  /** What the file holds for these keys. */
  stored: Stored;
}

interface Usable {
  kid: string;
  publicJwk: JWK;
  key: CryptoKey;
  stored: StoredKey;
}

/** One key as the owner sees it: never its private half. */
export interface DirectoryKeyInfo {
  kid: string;
  /**
   * `active` signs new tokens; `next` signs after the next rotation, published ahead; `retiring`
   * only verifies tokens already signed, until `until`.
   */
  state: 'active' | 'next' | 'retiring';
  created_at: string;
  retired_at: string | null;
  until: string | null;
}

export interface DirectoryKeys {
  /** The public keys, as `/.well-known/jwks.json` answers them. */
  jwks(): Promise<{ keys: (JWK & { kid: string; alg: string; use: string })[] }>;
  /** A compact JWS of `claims`, its header naming the key. */
  sign(claims: JWTPayload): Promise<string>;
  /** The published keys: the active one, the next, then those retiring. */
  list(): Promise<DirectoryKeyInfo[]>;
  /** The next key signs from now on; the one it replaces retires, or with `revokePrevious` all go. */
  rotate(options: { revokePrevious: boolean }): Promise<DirectoryKeyInfo[]>;
}

/** What tests replace: the clock that ends a retiring key's time, and how a key is made. */
export interface DirectoryKeysOptions {
  now?: () => number;
  makeKey?: () => Promise<StoredKey>;
}

export function directoryKeys(home: string, options: DirectoryKeysOptions = {}): DirectoryKeys {
  const { now = Date.now, makeKey: newKey = makeKey } = options;
  const file = join(home, DIRECTORY_KEY_FILE);
  let loaded: Promise<Loaded> | undefined;
  // The file's reads and writes one at a time: two rotations at once would each retire the same
  // key, and a first read upgrading an older home could write its old key back over a rotation
  // that revoked it.
  let queue: Promise<unknown> = Promise.resolve();
  function serial<T>(op: () => Promise<T>): Promise<T> {
    const done = queue.then(op);
    queue = done.catch(() => {});
    return done;
  }

  function load(): Promise<Loaded> {
    if (loaded === undefined) {
      const attempt = serial(readOrMake);
      loaded = attempt;
      // A failure is tried again on the next call, not kept: the owner may mend the file.
      attempt.catch(() => {
        if (loaded === attempt) loaded = undefined;
      });
    }
    return loaded;
  }

  /** The keys in the file, made on first use. Only within `serial`. */
  async function readOrMake(): Promise<Loaded> {
    const stored = readStored(file);
    if (stored === undefined) {
      const made: Stored = { ...(await newKey()), next: await newKey() };
      writeAtomically(file, made, 'create');
      return parse(made);
    }
    if (stored.next !== undefined) return parse(stored);
    // A home from before rotation: its next key is made now, and published from now on.
    // Checked whole before it is written: a damaged file is refused as it is.
    const upgraded = await parse({ ...stored, next: await newKey() });
    writeAtomically(file, upgraded.stored, 'replace');
    return upgraded;
  }

  /** The retired keys still within their time. */
  function published(retired: Loaded['retired']): Loaded['retired'] {
    const at = now();
    return retired.filter((key) => Date.parse(key.until) > at);
  }

  async function list(): Promise<DirectoryKeyInfo[]> {
    const { active, next, retired } = await load();
    const held = (key: Usable, state: 'active' | 'next'): DirectoryKeyInfo => ({
      kid: key.kid,
      state,
      created_at: key.stored.created_at,
      retired_at: null,
      until: null,
    });
    return [
      held(active, 'active'),
      held(next, 'next'),
      ...published(retired).map((key) => ({
        kid: key.kid,
        state: 'retiring' as const,
        created_at: key.created_at,
        retired_at: key.retired_at,
        until: key.until,
      })),
    ];
  }

  /** Only within `serial`. */
  async function rotate(revokePrevious: boolean): Promise<DirectoryKeyInfo[]> {
    let stored: Stored;
    if (revokePrevious) {
      // Nothing of the old file is kept, so this also replaces one that cannot be read.
      stored = { ...(await newKey()), next: await newKey(), retired: [] };
    } else {
      // Read again, not taken from `loaded`: a first read asked for after this rotation waits
      // behind it in the queue.
      const { active, next, retired } = await readOrMake();
      const at = now();
      stored = {
        ...next.stored,
        next: await newKey(),
        retired: [
          {
            public_jwk: active.publicJwk,
            created_at: active.stored.created_at,
            retired_at: new Date(at).toISOString(),
            until: new Date(at + RETIRING_MS).toISOString(),
          },
          ...published(retired).map(({ kid: _kid, ...key }) => key),
        ],
      };
    }
    const parsed = await parse(stored);
    writeAtomically(file, stored, 'replace');
    loaded = Promise.resolve(parsed);
    return list();
  }

  const jwk = (publicJwk: JWK, kid: string) => ({ ...publicJwk, kid, alg: ALG, use: 'sig' });

  return {
    async jwks() {
      const { active, next, retired } = await load();
      return {
        keys: [
          jwk(active.publicJwk, active.kid),
          jwk(next.publicJwk, next.kid),
          ...published(retired).map((key) => jwk(key.public_jwk, key.kid)),
        ],
      };
    },
    async sign(claims) {
      const { kid, key } = (await load()).active;
      return new SignJWT(claims).setProtectedHeader({ alg: ALG, kid, typ: 'JWT' }).sign(key);
    },
    list,
    rotate: ({ revokePrevious }) => serial(() => rotate(revokePrevious)),
  };
}

function unusable(what: string): ApiError {
  // Named by its place in the home, not its path (the JWKS route is public), and never with the
  // file's text or a parser's words about it, which may quote the private key.
  return new ApiError(
    'invalid_state',
    `the directory key (${DIRECTORY_KEY_FILE} in the daemon's home) ${what}: make a new one with svc sys directory rotate --revoke-previous`,
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
  try {
    chmodSync(file, 0o600);
  } catch (error) {
    throw unusable(`cannot be made private (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  let stored: unknown;
  try {
    stored = JSON.parse(text);
  } catch {
    throw unusable('is not JSON');
  }
  if (typeof stored !== 'object' || stored === null || Array.isArray(stored)) {
    throw unusable('holds no ES256 private key');
  }
  return stored as Stored;
}

/**
 * The keys, each public half derived from its private JWK so the two always match, and the
 * retired public keys, each checked as well.
 */
async function parse(stored: Stored): Promise<Loaded> {
  const retired = stored?.retired ?? [];
  if (
    !Array.isArray(retired) ||
    !retired.every(
      (key) => isP256(key?.public_jwk) && [key.created_at, key.retired_at, key.until].every(isTime),
    )
  ) {
    throw unusable('holds a retired key that cannot be read');
  }
  const [active, next] = await Promise.all([usable(stored), usable(stored.next)]);
  return {
    stored,
    active,
    next,
    retired: await Promise.all(
      retired.map(async (old) => {
        const public_jwk = publicOf(old.public_jwk as JWK & { x: string; y: string }); // checked above
        return { ...old, public_jwk, kid: await kidOf(public_jwk) };
      }),
    ),
  };
}

async function usable(stored: StoredKey | undefined): Promise<Usable> {
  const jwk = stored?.private_jwk;
  if (stored === undefined || !isP256(jwk) || typeof jwk.d !== 'string') {
    throw unusable('holds no ES256 private key');
  }
  // Checked here, not at the first rotation, which copies it to the key it retires.
  if (!isTime(stored.created_at)) throw unusable('holds a key without a valid created_at');
  const publicJwk = publicOf(jwk);
  try {
    const key = (await importJWK(jwk, ALG)) as CryptoKey;
    return { kid: await kidOf(publicJwk), publicJwk, key, stored };
  } catch {
    throw unusable('holds a key that cannot be used');
  }
}

function isTime(at: unknown): boolean {
  return typeof at === 'string' && !Number.isNaN(Date.parse(at));
}

function isP256(jwk: JWK | undefined): jwk is JWK & { x: string; y: string } {
  return (
    typeof jwk === 'object' &&
    jwk !== null &&
    jwk.kty === 'EC' &&
    jwk.crv === 'P-256' &&
    typeof jwk.x === 'string' &&
    typeof jwk.y === 'string'
  );
}

/** Only the public members: a retired entry written by hand with its `d` publishes none of it. */
function publicOf(jwk: JWK & { x: string; y: string }): JWK {
  return { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y };
}

/** RFC 7638: a kid that names the key itself, so a plugin's cache can never confuse two keys. */
function kidOf(publicJwk: JWK): Promise<string> {
  return calculateJwkThumbprint(publicJwk);
}

async function makeKey(): Promise<StoredKey> {
  const pair = await generateKeyPair(ALG, { extractable: true });
  return {
    private_jwk: await exportJWK(pair.privateKey),
    created_at: new Date().toISOString(),
  };
}

/**
 * Written whole and synced under a temporary name, then moved into place: a crash leaves no
 * half-written key. `create` links, which fails rather than replace a key tokens were signed by;
 * `replace` renames over it (the daemon's lock already makes this process the only writer), and
 * syncs the directory, so a crash just after a rotation that revoked a leaked key cannot bring
 * the old file back. A temporary file holds private keys: it is removed whatever fails (only a
 * killed process leaves one, 0600).
 */
function writeAtomically(file: string, stored: Stored, how: 'create' | 'replace'): void {
  const temp = `${file}.${process.pid}.tmp`;
  try {
    const fd = openSync(temp, 'w', 0o600);
    try {
      writeSync(fd, `${JSON.stringify(stored)}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    if (how === 'create') linkSync(temp, file);
    else renameSync(temp, file);
    if (how === 'replace') syncDirectory(dirname(file));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    // By its place in the home, as `unusable` does, never its path.
    throw new ApiError(
      'invalid_state',
      `the directory key (${DIRECTORY_KEY_FILE} in the daemon's home) cannot be written (${code}): check the home's permissions and free space`,
    );
  } finally {
    rmSync(temp, { force: true });
  }
}

function syncDirectory(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
