import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Store } from '../store/index.ts';

/** The `daemon_secrets` row the page keys are made under. */
const PAGE_KEY_NAME = 'viewer_page_key';

/**
 * A session's page key: an HMAC of its secret under a key of the daemon's (`daemon_secrets`),
 * so it needs no row of its own and cannot be worked out from the cookie.
 */
export function pageKeys(store: Pick<Store, 'secrets'>) {
  let keyOfKeys: Buffer | undefined;

  function of(secret: string): string {
    keyOfKeys ??= store.secrets.ensure(PAGE_KEY_NAME);
    return createHmac('sha256', keyOfKeys).update(`viewer-page:${secret}`).digest('base64url');
  }

  return {
    of,
    /**
     * Whether `key` is the page key of the session `secret`. A cookie goes to every port of its
     * host (RFC 6265 §8.5), so another local server the browser visits receives it too; the key
     * reaches only the viewer's page (the login redirect's fragment, which no server sees) and
     * stays in its origin's storage, which is per port. Compared in constant time.
     */
    matches(secret: string, key: string): boolean {
      const want = Buffer.from(of(secret));
      const got = Buffer.from(key);
      return got.length === want.length && timingSafeEqual(got, want);
    },
  };
}
