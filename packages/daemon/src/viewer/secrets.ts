import { hash } from 'node:crypto';

// 32 random bytes in unpadded base64url, for link codes and session secrets alike.
export const SECRET = /^[A-Za-z0-9_-]{43}$/;

/** The base64 SHA-256 of a link code or session secret: all that is kept of either. */
export function digest(secret: string): string {
  return hash('sha256', secret, 'base64');
}

export function rawDigest(secret: string): Buffer {
  return Buffer.from(digest(secret), 'base64');
}
