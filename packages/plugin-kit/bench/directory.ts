/// <reference types="node" />
// A stand-in directory for the directory-auth rows: one ES256 key, its JWKS (served to the kit
// through `jwks.fetch`), and a pool of distinct tokens signed up front with node:crypto, which
// signs far faster than minting each one through jose.
import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  randomUUID,
  sign,
} from 'node:crypto';
import type { JWK } from 'jose';

export type Directory = {
  /** PKCS #8 PEM, for `DIRECTORY_KEY_ENV` */
  privateKeyPem: string;
  issuer: string;
  audience: string;
  publicJwk: JWK;
  fetchJwks(input: string | URL | Request): Promise<Response>;
  mintPool(count: number, scope: string): string[];
};

/** The key, as PKCS #8 PEM, that servers in other processes take to share one directory. */
export const DIRECTORY_KEY_ENV = 'BENCH_DIRECTORY_KEY';

/** @param privateKeyPem a P-256 key in PKCS #8 PEM; a new one when absent */
export function createDirectory(
  issuer: string,
  audience: string,
  privateKeyPem?: string,
): Directory {
  const key = createPrivateKey(
    privateKeyPem ??
      generateKeyPairSync('ec', { namedCurve: 'P-256' })
        .privateKey.export({ format: 'pem', type: 'pkcs8' })
        .toString(),
  );
  const publicJwk: JWK = {
    ...createPublicKey(key).export({ format: 'jwk' }),
    kid: 'bench-1',
    alg: 'ES256',
    use: 'sig',
  };
  const base64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const header = base64url({ alg: 'ES256', kid: publicJwk.kid, typ: 'JWT' });

  return {
    privateKeyPem: key.export({ format: 'pem', type: 'pkcs8' }).toString(),
    issuer,
    audience,
    publicJwk,
    async fetchJwks() {
      return Response.json({ keys: [publicJwk] });
    },
    mintPool(count, scope) {
      const now = Math.floor(Date.now() / 1000);
      const tokens: string[] = [];
      for (let i = 0; i < count; i++) {
        const payload = base64url({
          iss: issuer,
          aud: audience,
          sub: `user_${i}`,
          grantee: 'app_bench',
          client_id: 'client_bench',
          initiating_app: 'app_bench',
          act: { sub: 'nd_bench' },
          scope,
          jti: randomUUID(),
          iat: now,
          exp: now + 3600,
        });
        // JWS ES256 signatures are the raw r||s pair (RFC 7518 §3.4), not DER.
        const signature = sign('sha256', Buffer.from(`${header}.${payload}`), {
          key,
          dsaEncoding: 'ieee-p1363',
        });
        tokens.push(`${header}.${payload}.${signature.toString('base64url')}`);
      }
      return tokens;
    },
  };
}
