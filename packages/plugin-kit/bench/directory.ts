/// <reference types="node" />
// A stand-in directory for the directory-auth rows: one ES256 key, its JWKS (served to the kit
// through `jwks.fetch`), and a pool of distinct tokens signed up front with node:crypto, which
// signs far faster than minting each one through jose.
import { createPrivateKey, generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import type { JWK } from 'jose';

export type Directory = {
  issuer: string;
  audience: string;
  publicJwk: JWK;
  fetchJwks(input: string | URL | Request): Promise<Response>;
  mintPool(count: number, scope: string): string[];
};

export function createDirectory(issuer: string, audience: string): Directory {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const publicJwk: JWK = {
    ...publicKey.export({ format: 'jwk' }),
    kid: 'bench-1',
    alg: 'ES256',
    use: 'sig',
  };
  const key = createPrivateKey(privateKey.export({ format: 'pem', type: 'pkcs8' }));
  const base64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const header = base64url({ alg: 'ES256', kid: publicJwk.kid, typ: 'JWT' });

  return {
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
