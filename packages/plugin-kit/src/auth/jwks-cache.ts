/**
 * The directory's key set, cached by the kit rather than by jose's remote key set. jose starts its
 * cooldown only after a *successful* fetch, so while the directory is down or slow every request
 * with an unknown `kid` (and, once the cache is stale, every request) fetches again and waits for
 * it, and a failed refresh of a stale cache fails tokens signed by keys we still hold. Here the
 * cooldown counts attempts, failed ones too: a directory that is down sees at most one fetch per
 * cooldown, and the last good keys keep verifying until a refresh succeeds. Key selection (kid,
 * alg, use) stays jose's, through its local key set.
 */
import {
  type CryptoKey,
  createLocalJWKSet,
  errors,
  type FlattenedJWSInput,
  type JWSHeaderParameters,
} from 'jose';
import { decode, readCounted } from '../http/body.ts';

export interface JwksCacheOptions {
  /** `<issuer>/.well-known/jwks.json` */
  url: string;
  fetch: (input: string, init: RequestInit) => Promise<Response>;
  /**
   * Least time between the starts of two fetch attempts, whether they succeed or fail; the first
   * good load does not start it.
   */
  cooldownMs: number;
  /** Keys older than this are refetched when the cooldown allows, and kept if that fails. */
  cacheMaxAgeMs: number;
  /** Bound on one attempt, response and body, even when `fetch` ignores its signal. */
  timeoutMs: number;
}

/** Finds the key for a token, in the shape `jwtVerify` takes; rejects when there is none. */
export type KeyResolver = (
  header: JWSHeaderParameters,
  token: FlattenedJWSInput,
) => Promise<CryptoKey>;

type LocalSet = ReturnType<typeof createLocalJWKSet>;

interface Attempt {
  startedAt: number;
  /** Settles, never rejects, once the attempt has succeeded, failed or timed out. */
  settled: Promise<void>;
}

/**
 * An attempt settles by its own timeout, unless the request that started it was cancelled first:
 * workerd then drops that request's I/O and timers, so the attempt never settles. Past this grace
 * it counts as abandoned, so one cancelled request cannot block key fetching for good.
 */
const ABANDON_GRACE_MS = 1_000;

/**
 * A key set holds a few keys of under a kilobyte each: 1 MiB is a thousand of them. A directory
 * that is broken or not what it claims gets no further than this into the handler's memory.
 */
export const MAX_KEY_SET_BYTES = 1 << 20;

export function createJwksCache(options: JwksCacheOptions): KeyResolver {
  const { url, fetch, cooldownMs, cacheMaxAgeMs, timeoutMs } = options;
  /** The last good key set; never dropped for a failed refresh. */
  let keys: { set: LocalSet; fetchedAt: number } | null = null;
  /** When the last attempt started, which starts the cooldown. */
  let lastAttemptAt = Number.NEGATIVE_INFINITY;
  /**
   * The first good load grants one attempt that skips the cooldown: an unknown kid right after it
   * may still refetch once (DESIGN §4), for a key the directory rotated in meanwhile.
   */
  let refetchGranted = false;
  let pending: Attempt | null = null;
  let started = 0;
  let applied = 0;

  /** The attempt in flight to share, else a new one if the cooldown allows, else `null`. */
  function attempt(): Attempt | null {
    const now = Date.now();
    if (pending !== null && now - pending.startedAt < timeoutMs + ABANDON_GRACE_MS) return pending;
    if (!refetchGranted && now - lastAttemptAt < cooldownMs) return null;
    refetchGranted = false;
    lastAttemptAt = now;
    const sequence = ++started;
    const signal = AbortSignal.timeout(timeoutMs);
    const current: Attempt = {
      startedAt: now,
      settled: raceSignal(load(url, fetch, signal), signal)
        .then(
          (set) => {
            // an abandoned attempt that succeeds late must not replace newer keys
            if (sequence < applied) return;
            applied = sequence;
            if (keys === null) refetchGranted = true;
            keys = { set, fetchedAt: Date.now() };
          },
          // A failure keeps the last good keys and logs nothing: the reason could carry the
          // directory's answer, and every caller gets the same 401 anyway.
          () => {},
        )
        .finally(() => {
          if (pending === current) pending = null;
        }),
    };
    pending = current;
    return current;
  }

  /**
   * Waits for an attempt, but no longer than its timeout: on workerd a request that joins another
   * request's attempt would wait forever if that request were cancelled (see ABANDON_GRACE_MS).
   */
  async function settle(current: Attempt): Promise<void> {
    const left = Math.max(0, current.startedAt + timeoutMs - Date.now());
    await raceSignal(current.settled, AbortSignal.timeout(left)).catch(() => {});
  }

  return async (header, token) => {
    let waited = false;
    // A stale set is refreshed before it is used, not in the background: workerd cancels the I/O
    // of a request once it has answered, so a refresh no request waits for would never land, and
    // keys the directory has dropped would go on verifying. The wait is bounded by `timeoutMs`
    // and happens at most once per cooldown; a failed refresh keeps the stale keys.
    if (keys === null || Date.now() - keys.fetchedAt >= cacheMaxAgeMs) {
      const current = attempt();
      if (current !== null) {
        await settle(current);
        waited = true;
      }
    }
    const known = keys;
    if (known === null) throw new errors.JOSEError('No key set from the directory yet');
    try {
      return await known.set(header, token);
    } catch (error) {
      // An unknown kid may be a key the directory rotated in: refetch once, unless this request
      // has just waited for a fetch or the cooldown forbids one (a flood of made-up kids must not
      // become a flood of fetches).
      if (!(error instanceof errors.JWKSNoMatchingKey)) throw error;
      if (waited) {
        // Its kid is unknown to keys fetched just now: the refetch granted after the first load
        // is spent, so a flood that starts cold costs one fetch, not two.
        if (refetchGranted) {
          refetchGranted = false;
          lastAttemptAt = Date.now();
        }
        throw error;
      }
      const current = attempt();
      if (current === null) throw error;
      await settle(current);
      return (keys ?? known).set(header, token);
    }
  };
}

/** One fetch of the key set; anything but a 200 carrying `{ keys: [...] }` is a failure. */
async function load(
  url: string,
  fetch: JwksCacheOptions['fetch'],
  signal: AbortSignal,
): Promise<LocalSet> {
  const response = await fetch(url, {
    method: 'GET',
    // a redirect is a failure, not a hop to wherever it points
    redirect: 'manual',
    signal,
    headers: { Accept: 'application/jwk-set+json, application/json' },
  });
  if (response.status !== 200) {
    response.body?.cancel().catch(() => {});
    throw new errors.JOSEError(`The key set endpoint answered ${response.status}`);
  }
  // Throws past the bound, on a body that is not UTF-8 JSON, and on one that is not a key set.
  return createLocalJWKSet(JSON.parse(decode(await readCounted(response, MAX_KEY_SET_BYTES))));
}

/** `promise`, or the signal's reason once it aborts: bounds a fetch that ignores its signal. */
function raceSignal<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
