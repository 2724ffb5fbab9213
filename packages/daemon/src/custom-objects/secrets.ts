/**
 * A custom object's secrets: its publish token (shown once, kept as SHA-256 only, like every
 * bearer token) and, for a url receiver, the Standard Webhooks signing secret (kept in clear: the
 * daemon signs with it). Neither is ever logged.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { PUBLISH_TOKEN_PREFIX, SIGNING_SECRET_PREFIX } from '@svc/protocol';
import type { Principal } from '../ports.ts';
import type { Store } from '../store/index.ts';

// 32 random bytes in unpadded base64url, as the other tokens.
const PUBLISH_TOKEN = /^svc_pub_[A-Za-z0-9_-]{43}$/;

export function mintPublishToken(): { secret: string; hash: Uint8Array } {
  const secret = PUBLISH_TOKEN_PREFIX + randomBytes(32).toString('base64url');
  return { secret, hash: publishHash(secret) };
}

function publishHash(secret: string): Uint8Array {
  return createHash('sha256').update(secret).digest();
}

/** `whsec_` + base64 of 32 random bytes (Standard Webhooks: the key is the decoded bytes). */
export function mintSigningSecret(): string {
  return SIGNING_SECRET_PREFIX + randomBytes(32).toString('base64');
}

/**
 * The principal of a publish token: its object's id as the token id (one token per object, so
 * an Idempotency-Key is per object) and no scope. `auth.ts` lets it reach only that object's
 * publish route. `undefined` when it is no live publish token (malformed, or its object is gone).
 */
export function publishPrincipal(store: Store, secret: string): Principal | undefined {
  if (!PUBLISH_TOKEN.test(secret)) return undefined;
  const objectId = store.customObjects.idByPublishHash(publishHash(secret));
  if (objectId === undefined) return undefined;
  return Object.freeze({
    tokenId: objectId,
    kind: 'publish',
    appId: null,
    nodeId: null,
    scopes: Object.freeze([]) as unknown as string[],
    expiresAt: null,
  });
}

export function isPublishSecret(secret: string): boolean {
  return secret.startsWith(PUBLISH_TOKEN_PREFIX);
}

/**
 * `webhook-signature` of Standard Webhooks: `v1,` + base64 HMAC-SHA256, keyed with the secret's
 * decoded bytes, of `<webhook-id>.<webhook-timestamp>.<body>`.
 */
export function webhookSignature(
  signingSecret: string,
  id: string,
  timestamp: number,
  body: string,
): string {
  const key = Buffer.from(signingSecret.slice(SIGNING_SECRET_PREFIX.length), 'base64');
  const mac = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
  return `v1,${mac}`;
}
