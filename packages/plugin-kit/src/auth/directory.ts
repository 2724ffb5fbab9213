/**
 * Directory mode: the bearer is a JWT the directory minted. Keys come from
 * `<issuer>/.well-known/jwks.json` through the kit's key-set cache (jwks-cache.ts), which caches
 * them, refetches once for an unknown `kid`, starts at most one fetch per cooldown and times it out.
 */
import { type CryptoKey, errors, type JWTPayload, type JWTVerifyOptions, jwtVerify } from 'jose';
import { PluginError } from '../errors.ts';
import type { Caller, FetchHandlerOptions } from '../types.ts';
import { bearerToken } from './bearer.ts';
import { createJwksCache, type KeyResolver } from './jwks-cache.ts';

/** Asymmetric algorithms only: never `none`, never HS* (a public key must not become a secret). */
const ALGORITHMS = ['ES256', 'RS256', 'EdDSA', 'PS256'];

/**
 * Seconds of clock skew tolerated on `nbf`, not on `exp` (see the check below). `iat` is not
 * checked: RFC 7519 §4.1.6 makes it information, and jose reads it only for a `maxTokenAge`.
 */
const CLOCK_TOLERANCE = 5;

type DirectoryOptions = NonNullable<FetchHandlerOptions['auth']>;
type JwksOptions = NonNullable<FetchHandlerOptions['jwks']>;

/** The caller without `requestId`, which comes from the header once the token is good. */
export type Claims = Omit<Caller, 'requestId'>;

export function createDirectoryVerifier(
  auth: DirectoryOptions,
  jwks: JwksOptions,
): (request: Request) => Promise<Claims> {
  const keys = createJwksCache({
    url: new URL(`${auth.issuer.replace(/\/+$/, '')}/.well-known/jwks.json`).href,
    fetch: jwks.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    cooldownMs: jwks.cooldownMs ?? 30_000,
    cacheMaxAgeMs: jwks.cacheMaxAgeMs ?? 600_000,
    // A key set is a few hundred bytes from a directory close by: 2 s is ample, and a caller held
    // up by a directory that hangs gets its 401 well inside a typical 5 s client timeout.
    timeoutMs: jwks.timeoutMs ?? 2_000,
  });
  const options: JWTVerifyOptions = {
    issuer: auth.issuer,
    audience: auth.audience,
    algorithms: ALGORITHMS,
    clockTolerance: CLOCK_TOLERANCE,
    requiredClaims: ['exp'],
  };
  return async (request) => {
    const token = bearerToken(request);
    if (token === null) throw unauthorized('A directory token is required (Authorization: Bearer)');
    let payload: JWTPayload;
    try {
      payload = await verifyWithAnyKey(token, keys, options);
      // jose's clockTolerance covers `exp` too, and RFC 7519 §4.1.4 allows such leeway, but the
      // kit refuses a token at or past its expiry outright; it only forgives a few seconds of
      // skew on a fresh token (`nbf`). jose has checked that `exp` is a number.
      if ((payload.exp as number) * 1000 <= Date.now()) throw new Error('expired');
    } catch {
      // One answer for a bad signature, claim, key or an unreachable key set: the reason stays
      // out of the response so it teaches an attacker nothing.
      throw unauthorized('The directory token is invalid');
    }
    return claims(payload);
  };
}

/** A directory rotating its keys publishes two of an algorithm, three at most while it overlaps. */
const MAX_CANDIDATE_KEYS = 4;

/**
 * The token's claims once verified. A token without `kid` matches every key of its algorithm, and
 * jose then throws, leaving the candidates to try (its "JWKSMultipleMatchingKeys" error is an
 * async iterator of them): a directory mid-rotation publishes two such keys, and a good token
 * must not fail for it. The key set is the directory's, so the candidates are few.
 */
async function verifyWithAnyKey(
  token: string,
  keys: KeyResolver,
  options: JWTVerifyOptions,
): Promise<JWTPayload> {
  try {
    return (await jwtVerify(token, keys, options)).payload;
  } catch (error) {
    if (!(error instanceof errors.JWKSMultipleMatchingKeys)) throw error;
    let tried = 0;
    for await (const key of error as unknown as AsyncIterable<CryptoKey>) {
      // A forged kid-less token costs a signature check per candidate: a few, whatever the set.
      if (++tried > MAX_CANDIDATE_KEYS) break;
      try {
        return (await jwtVerify(token, key, options)).payload;
      } catch (failed) {
        if (!(failed instanceof errors.JWSSignatureVerificationFailed)) throw failed;
      }
    }
    throw error;
  }
}

/**
 * The `scope` claim as a list: a space-separated string (RFC 8693 §4.2) or an array. No claim is
 * no scope, so the called group is missing from it: 403 `scope_missing` (SPEC, Directory mode 4),
 * where a claim of another type makes the token malformed (401).
 */
function scopeList(scope: unknown): string[] | null {
  if (scope === undefined) return [];
  if (typeof scope === 'string') return scope.split(' ').filter((s) => s !== '');
  if (Array.isArray(scope) && scope.every((s) => typeof s === 'string')) return scope;
  return null;
}

function claims(payload: JWTPayload): Claims {
  const text = (name: string): string => {
    const value = payload[name];
    if (typeof value !== 'string' || value === '') {
      throw unauthorized(`The directory token lacks the claim "${name}"`);
    }
    return value;
  };
  const scope = scopeList(payload.scope);
  if (scope === null) throw unauthorized('The directory token has a malformed claim "scope"');
  const act = payload.act;
  if (
    typeof act !== 'object' ||
    act === null ||
    typeof (act as { sub?: unknown }).sub !== 'string'
  ) {
    throw unauthorized('The directory token lacks the claim "act"');
  }
  const caller: Claims = {
    sub: text('sub'),
    grantee: text('grantee'),
    clientId: text('client_id'),
    scope,
    initiatingApp: text('initiating_app'),
    act: act as Caller['act'],
    jti: text('jti'),
  };
  // `null` reads as absent: a call made outside any run has none (SPEC: `runId` is optional), and
  // a directory may write that as `null` where another leaves the claim out.
  if (payload.run_id !== undefined && payload.run_id !== null) caller.runId = text('run_id');
  return caller;
}

function unauthorized(message: string): PluginError {
  return new PluginError(401, 'unauthorized', message);
}
