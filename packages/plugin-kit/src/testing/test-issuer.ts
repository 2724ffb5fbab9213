/**
 * A stand-in directory for development and tests: it holds a key pair, serves its public keys at
 * `<issuer>/.well-known/jwks.json` through `fetch` (pass it as `jwks.fetch`), and mints tokens
 * shaped like the directory's outbound tokens.
 */
import { type CryptoKey, exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';

export type TestIssuerAlg = 'ES256' | 'RS256' | 'PS256' | 'EdDSA';

export interface MintClaims {
  aud: string | string[];
  /** `<plugin>:<group>` scopes: a string is sent as is (space-separated), an array as an array. */
  scope: string | string[];
  sub?: string;
  grantee?: string;
  client_id?: string;
  initiating_app?: string;
  act?: { sub: string; [claim: string]: unknown };
  run_id?: string;
  /** Seconds since the epoch; default now + 5 min. */
  exp?: number;
  nbf?: number;
  iat?: number;
  jti?: string;
  iss?: string;
  /**
   * Header `kid`; default the signing key's (`signWith`'s when it is the key before `rotate`, else
   * the current key's); `null` for a token without one.
   */
  kid?: string | null;
  /** Claims to leave out of the token, to test a token missing one. */
  omit?: readonly string[];
  /** Signs with this key instead of the current one: a previous key kept before `rotate`. */
  signWith?: CryptoKey;
}

export interface TestIssuer {
  issuer: string;
  alg: TestIssuerAlg;
  /** The current key pair (`rotate` replaces it), to sign a token that `mint` cannot shape. */
  readonly privateKey: CryptoKey;
  readonly publicKey: CryptoKey;
  /** The current public key as published, with its `kid`, `alg` and `use`. */
  readonly publicJwk: JWK;
  /** The public key set: the current key and, after `rotate`, the previous one. */
  jwks(): { keys: JWK[] };
  /** Answers GET `<issuer path>/.well-known/jwks.json`; 404 otherwise. */
  fetch(input: string | URL | Request, init?: RequestInit): Promise<Response>;
  mint(claims: MintClaims): Promise<string>;
  /** Signs with a new key from now on, keeping the previous public key published. */
  rotate(): Promise<void>;
}

interface SigningKey {
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  jwk: JWK;
}

/** @param options.issuer the `iss` of its tokens, default `https://directory.test` */
export async function createTestIssuer(
  options: { issuer?: string; alg?: TestIssuerAlg } = {},
): Promise<TestIssuer> {
  const { issuer = 'https://directory.test', alg = 'ES256' } = options;
  const jwksPath = `${new URL(issuer).pathname.replace(/\/+$/, '')}/.well-known/jwks.json`;
  let current = await newKey(alg);
  let previous: SigningKey | null = null;

  const jwks = () => ({ keys: previous === null ? [current.jwk] : [current.jwk, previous.jwk] });

  return {
    issuer,
    alg,
    get privateKey() {
      return current.privateKey;
    },
    get publicKey() {
      return current.publicKey;
    },
    get publicJwk() {
      return current.jwk;
    },
    jwks,
    async fetch(input, init) {
      const request = new Request(input, init);
      if (request.method !== 'GET' || new URL(request.url).pathname !== jwksPath) {
        return new Response('not found', { status: 404 });
      }
      return Response.json(jwks());
    },
    async mint(claims) {
      const now = Math.floor(Date.now() / 1000);
      const { omit = [], signWith = current.privateKey, ...rest } = claims;
      // The key that signs names itself, as a directory's token does; a key not the issuer's
      // borrows the current key's id, as a forger's would.
      const signer = signWith === previous?.privateKey ? previous : current;
      const { kid = signer.jwk.kid, ...given } = rest;
      const payload: Record<string, unknown> = {
        iss: issuer,
        sub: 'user_test',
        grantee: 'app_test',
        client_id: 'client_test',
        initiating_app: 'app_test',
        act: { sub: 'nd_test' },
        jti: crypto.randomUUID(),
        iat: now,
        exp: now + 300,
        ...given,
      };
      for (const name of omit) delete payload[name];
      return new SignJWT(payload)
        .setProtectedHeader({ alg, typ: 'JWT', ...(kid === null ? {} : { kid }) })
        .sign(signWith);
    },
    async rotate() {
      previous = current;
      current = await newKey(alg);
    },
  };
}

async function newKey(alg: TestIssuerAlg): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg);
  const jwk = await exportJWK(publicKey);
  return { privateKey, publicKey, jwk: { ...jwk, kid: crypto.randomUUID(), alg, use: 'sig' } };
}
