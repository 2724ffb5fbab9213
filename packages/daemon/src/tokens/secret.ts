/** Bearer secrets: their form, their digest (all the daemon keeps of one), the owner's file. */
import { hash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { TokenKind } from '../ports.ts';

export const TOKEN_PREFIXES: Readonly<Record<TokenKind, string>> = {
  owner: 'svc_owner_',
  app: 'svc_app_',
  node: 'svc_node_',
};

// 32 random bytes in unpadded base64url.
const SECRET = /^svc_(owner|app|node)_[A-Za-z0-9_-]{43}$/;

export function newSecret(kind: TokenKind): string {
  return TOKEN_PREFIXES[kind] + randomBytes(32).toString('base64url');
}

/** Whether `secret` has the form of a token secret: nothing else is worth a digest. */
export function isTokenSecret(secret: string): boolean {
  return SECRET.test(secret);
}

/** The SHA-256 of a secret in base64: a string digest is the cheapest to compute and to key by. */
export function digest(secret: string): string {
  return hash('sha256', secret, 'base64');
}

/** The secret written in `file`, or `null` when there is none to read. */
export function readSecret(file: string): string | null {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return null;
  }
}
