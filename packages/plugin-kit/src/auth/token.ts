/** Shared-token mode: the bearer must equal the configured token. */
import { bearerToken } from './bearer.ts';

/**
 * Compares in constant time with respect to the secret. The loop runs once per code unit of the
 * presented token, which the caller chose anyway, and never exits early; the expected side is
 * indexed modulo its length, so neither the secret's bytes nor its length shape the timing. A
 * length mismatch is folded into the result instead of answered up front.
 */
export function createTokenCheck(token: string): (request: Request) => boolean {
  const expected = new Uint16Array(token.length);
  for (let i = 0; i < token.length; i++) expected[i] = token.charCodeAt(i);
  const length = expected.length;
  return (request) => {
    const given = bearerToken(request);
    if (given === null) return false;
    let diff = given.length ^ length;
    for (let i = 0; i < given.length; i++) {
      diff |= given.charCodeAt(i) ^ expected[i % length]!;
    }
    return diff === 0;
  };
}
