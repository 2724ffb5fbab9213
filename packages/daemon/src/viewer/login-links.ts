import { randomBytes } from 'node:crypto';
import { digest, SECRET } from './secrets.ts';

/**
 * One-time login link codes, kept in memory by their SHA-256 only: a link that outlives a
 * daemon restart is of no use, as it lives 60 s.
 */
export function loginLinks(ttlMs: number, now: () => number) {
  /** Unused codes: the base64 SHA-256 of each → when it expires. */
  const links = new Map<string, number>();

  function dropExpired(at: number): void {
    for (const [key, expires] of links) if (expires <= at) links.delete(key);
  }

  return {
    /** A new link code and when it expires; only its digest is kept. */
    create(): { code: string; expiresAt: string } {
      const at = now();
      dropExpired(at);
      const code = randomBytes(32).toString('base64url');
      links.set(digest(code), at + ttlMs);
      return { code, expiresAt: new Date(at + ttlMs).toISOString() };
    },

    /**
     * Uses `code` up: true when it was unused and unexpired. A code is deleted before anything
     * else happens, in one synchronous step, so of two racing uses only the first is true.
     */
    consume(code: string): boolean {
      if (!SECRET.test(code)) return false;
      const key = digest(code);
      const expires = links.get(key);
      if (expires === undefined) return false;
      links.delete(key);
      return expires > now();
    },
  };
}
