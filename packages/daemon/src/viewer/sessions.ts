/**
 * Viewer sessions, kept in the `viewer_sessions` table by their SHA-256, so a browser stays
 * logged in across restarts.
 */
import { randomBytes } from 'node:crypto';
import type { EventLog } from '../events/log.ts';
import type { Store } from '../store/index.ts';
import { rawDigest, SECRET } from './secrets.ts';

export interface SessionDeps {
  store: Pick<Store, 'db' | 'viewerSessions'>;
  events: EventLog;
  now: () => number;
}

/** Opens a session lasting `ttlMs`: its secret, shown only here. */
export function openSession(
  { store, events, now }: SessionDeps,
  ttlMs: number,
): { secret: string; expiresAt: string } {
  const at = now();
  const secret = randomBytes(32).toString('base64url');
  const createdAt = new Date(at).toISOString();
  const expiresAt = new Date(at + ttlMs).toISOString();
  store.db.transaction(() => {
    store.viewerSessions.prune(createdAt);
    store.viewerSessions.insert({
      hash: rawDigest(secret),
      created_at: createdAt,
      expires_at: expiresAt,
    });
    events.record('viewer.session.created', null, {
      created_at: createdAt,
      expires_at: expiresAt,
    });
  });
  return { secret, expiresAt };
}

/** Whether `secret` names a live session (known, not revoked, not expired). */
export function isLiveSession({ store, now }: SessionDeps, secret: string): boolean {
  if (!SECRET.test(secret)) return false;
  const row = store.viewerSessions.byHash(rawDigest(secret));
  return row !== undefined && row.revoked_at === null && Date.parse(row.expires_at) > now();
}

/** Revokes the session of `secret`; false when there was no live one. */
export function revokeSession({ store, events, now }: SessionDeps, secret: string): boolean {
  if (!SECRET.test(secret)) return false;
  const at = new Date(now()).toISOString();
  return store.db.transaction(() => {
    if (!store.viewerSessions.revoke(rawDigest(secret), at)) return false;
    events.record('viewer.session.revoked', null, { revoked_at: at });
    return true;
  });
}
