/** Shared-token mode: the bearer must equal the configured token. */
import { bearerToken } from './bearer.ts';

const encoder = new TextEncoder();

/**
 * Compares in constant time: both sides are hashed first, so the loop always runs over 32 bytes
 * whatever the lengths, and it never exits early on the first differing byte.
 */
export function createTokenCheck(token: string): (request: Request) => Promise<boolean> {
  const expected = sha256(token);
  return async (request) => {
    const given = bearerToken(request);
    if (given === null) return false;
    const [a, b] = await Promise.all([expected, sha256(given)]);
    let diff = 0;
    for (let i = 0; i < a.length; i++) diff |= (a[i] ?? 0) ^ (b[i] ?? 0);
    return diff === 0;
  };
}

async function sha256(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(text)));
}
