/**
 * The viewer session's page key (docs/api-v1.md "Viewer"). The login redirect puts it in the
 * fragment of `/viewer/#key=…`, which no server is sent; every request sends it back as
 * `Svc-Viewer` beside the HttpOnly cookie. A browser sends the cookie to every port of the host
 * (RFC 6265 §8.5), so another local server would get it; the key stays in this origin's
 * `localStorage`, which is per port, and so it is what makes the cookie usable only here.
 */
const STORED = 'svc-viewer-key';
const KEY_FRAGMENT = /^#key=([A-Za-z0-9_-]{43})$/;

/** Keeps a key the login redirect brought, and takes it out of the address bar and history. */
export function takeKeyFromLocation(): void {
  const brought = KEY_FRAGMENT.exec(location.hash)?.[1];
  if (brought === undefined) return;
  try {
    localStorage.setItem(STORED, brought);
  } catch {
    // Storage refused (a locked-down profile): the requests will answer 401, which says so.
  }
  history.replaceState(null, '', `${location.pathname}${location.search}#/`);
}

/** The key of this browser's latest login on this origin, or `null` before any. */
export function pageKey(): string | null {
  try {
    return localStorage.getItem(STORED);
  } catch {
    return null;
  }
}

/** Forgets the key (at logout): a later visit reads "Not logged in", not "session ended". */
export function forgetKey(): void {
  try {
    localStorage.removeItem(STORED);
  } catch {
    // nothing kept, nothing to forget
  }
}

/**
 * Calls `fn` when a login in another tab of this origin stores a new key (the `storage` event
 * fires in the other tabs only), so a tab that read its session as ended takes the new one up.
 * Answers the unsubscribe.
 */
export function onNewKey(fn: () => void): () => void {
  const listener = (event: StorageEvent) => {
    if (event.key === STORED && event.newValue !== null) fn();
  };
  addEventListener('storage', listener);
  return () => removeEventListener('storage', listener);
}
