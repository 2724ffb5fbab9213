import { hash } from 'node:crypto';
import { ApiError } from '../errors.ts';
import type { IdempotencyStore } from '../store/idempotency.ts';
import { IDEMPOTENCY_TTL_MS } from '../store/idempotency.ts';
import type { Store } from '../store/index.ts';
import type { Call, Reply } from './call.ts';
import { finalHeaders } from './errors.ts';

const KEY = /^[\x21-\x7e]{1,255}$/;
const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Answers whose body carries a secret shown once: the stored copy has that field blanked and the
 * whole answer is kept in memory only, so a retry within this daemon's life gets it back exactly
 * and no secret is ever written to the database.
 */
const SECRET_FIELDS: Readonly<Record<string, string | readonly string[]>> = {
  'connect.create': 'token',
  // The login link's code is a secret until used.
  'viewer.links.create': 'url',
  // A custom object's publish token and, for a url receiver, its signing secret.
  'customObjects.register': ['publish_token', 'signing_secret'],
  // A bearer JWT a plugin accepts for five minutes.
  'broker.pluginToken.mint': 'token',
};

/**
 * Routes whose 5xx is stored like any answer: it may come after the work was done (a plugin that
 * failed, or was cut off, may have acted), so a retry must get it back, not do the work again.
 */
const FINAL_5XX: ReadonlySet<string> = new Set(['providers.call']);

/**
 * `Idempotency-Key` on POST/PUT/PATCH/DELETE (draft-ietf-httpapi-idempotency-key-header): the
 * first answer is stored per (token, key) with a fingerprint of method, path and body, and a
 * retry gets it back with `Idempotent-Replayed: true`. The same key on another request → 409
 * `conflict`. A retry that comes while the first is still running waits for its answer: the
 * draft suggests a 409 there, but the usual such retry follows a timeout or a dropped
 * connection, and its caller wants the first answer, not an error it must poll past (a 409
 * after a timed-out `bash.run` read as a conflict). A 5xx (or a stream) is not stored, so a
 * retry may run again, except on `FINAL_5XX` routes. Keys live 24 h. `run` answers the request (a handler's error already
 * turned into its error response).
 */
export function idempotency(store: IdempotencyStore): Idempotent {
  const secrets = new Map<string, { body: string; expires: number }>();
  /** The requests of this daemon's life still running under a claimed key, by holder and key. */
  const running = new Map<string, Promise<void>>();
  return (c, key, run) => {
    const principal = c.principal;
    if (key === undefined || principal === null || !MUTATING.has(c.method)) return run();
    return keyed(c, key, principal.nodeId ?? principal.tokenId, run);
  };

  async function keyed(
    c: Call,
    key: string,
    // A node's brokers share their keys: each relaunch holds a fresh token, and a relaunched
    // broker repeating a call (a spawn) must get the first answer, not a second child.
    holder: string,
    run: () => Reply | Promise<Reply>,
  ): Promise<Reply> {
    if (!KEY.test(key)) {
      throw new ApiError(
        'invalid_request',
        'Idempotency-Key must be 1 to 255 visible ASCII characters',
        {
          field: 'Idempotency-Key',
        },
      );
    }
    // The field of the route's answer shown only once, which the stored copy leaves out.
    const secretField = SECRET_FIELDS[c.route!.id];
    // The query is part of the request: a DELETE that names its target there (memory.delete)
    // repeated with another target must not replay the first. Sorted, so order does not count.
    const params = new URLSearchParams(c.query);
    params.sort();
    const target = params.size === 0 ? c.path : `${c.path}?${params}`;
    const fingerprint = `${c.method} ${target} ${hash('sha256', c.input.raw, 'hex')}`;
    const memoKey = `${holder}\n${key}`;
    let now = Date.now();
    for (const [k, v] of secrets) if (v.expires <= now) secrets.delete(k);

    let made: string | null = null;
    for (; ; now = Date.now()) {
      const claim = store.claim(holder, key, fingerprint, now);
      if (claim.claimed) break;
      const { row } = claim;
      if (row.fingerprint !== fingerprint) {
        throw new ApiError(
          'conflict',
          'this Idempotency-Key was already used with a different request (method, path, query or body)',
          { field: 'Idempotency-Key' },
        );
      }
      if (row.status === null) {
        const first = running.get(memoKey);
        // A claim no request of this daemon holds came through a restart, which keeps only one
        // whose request made something (releaseUnfinished): this retry takes it over and waits
        // on that again (`madeOnce`). Taken at once, with no await, so only one retry does.
        if (first === undefined && row.made !== null) {
          made = row.made;
          break;
        }
        if (first === undefined) {
          throw new ApiError(
            'conflict',
            'a request with this Idempotency-Key is still running; retry when it has answered',
            { field: 'Idempotency-Key' },
          );
        }
        await settledOrGone(first, c.signal);
        continue; // its answer is stored now, or its claim released (a 5xx), for us to take
      }
      const heldSecret = secretField !== undefined && row.status < 300;
      const body = heldSecret ? secrets.get(memoKey)?.body : row.body;
      if (body === undefined || body === null) {
        throw new ApiError(
          'conflict',
          `the first answer to this Idempotency-Key held a secret shown only once, and the daemon restarted since; send the request again with a new key`,
          { field: 'Idempotency-Key' },
        );
      }
      return c.body(body, row.status, {
        'Content-Type': row.content_type ?? 'application/json',
        'Idempotent-Replayed': 'true',
        ...finalHeaders(row.status), // as final as the first time
      });
    }

    const done = track(memoKey);
    c.keyClaim = { holder, key, made };
    try {
      let res: Reply;
      try {
        res = await run();
      } catch (error) {
        store.release(holder, key); // nothing was answered: the key must not stay claimed
        throw error;
      }
      if ((res.status >= 500 && !FINAL_5XX.has(c.route!.id)) || typeof res.body !== 'string') {
        store.release(holder, key);
        return res;
      }
      const body = res.body;
      let stored = body;
      if (secretField !== undefined && res.status < 300) {
        secrets.set(memoKey, { body, expires: now + IDEMPOTENCY_TTL_MS });
        stored = JSON.stringify({ ...(JSON.parse(body) as object), ...blanked(secretField) });
      }
      store.complete(holder, key, res.status, res.headers['Content-Type'] ?? null, stored);
      return res;
    } finally {
      done(); // after the answer is stored or the claim released, so a waiter finds either
    }
  }

  /** Marks `memoKey` running until the returned function is called. */
  function track(memoKey: string): () => void {
    let settle = () => {};
    running.set(
      memoKey,
      new Promise<void>((resolve) => {
        settle = resolve;
      }),
    );
    return () => {
      running.delete(memoKey);
      settle();
    };
  }
}

/**
 * For a route that makes a node or run and then holds its answer open (`createAndWait`, `parse`):
 * the id is recorded under the request's Idempotency-Key in the transaction that makes it, so a
 * retry after a restart, which no open answer survives, waits on it again instead of making a
 * second one (as a retry within the daemon's life already does). Without a key, just `make`.
 * @param make makes it in a transaction of the store (which this one joins), answering its id
 */
export function madeOnce(c: Call, store: Pick<Store, 'db' | 'idempotency'>, make: () => string) {
  const claim = c.keyClaim;
  if (claim === null) return make();
  if (claim.made !== null) return claim.made;
  return store.db.transaction(() => {
    const id = make();
    store.idempotency.made(claim.holder, claim.key, id);
    return id;
  });
}

/** `{field: null}` for each secret field of an answer: what its stored copy holds instead. */
function blanked(fields: string | readonly string[]): Record<string, null> {
  return Object.fromEntries([fields].flat().map((field) => [field, null]));
}

/** Runs a request under its `Idempotency-Key` (the header's value, if any). */
export type Idempotent = (
  c: Call,
  key: string | undefined,
  run: () => Reply | Promise<Reply>,
) => Reply | Promise<Reply>;

/** Resolves when `first` settles, or rejects (the caller is gone) when `signal` aborts first. */
function settledOrGone(first: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(gone());
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(gone());
    signal.addEventListener('abort', onAbort, { once: true });
    void first.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}

function gone(): ApiError {
  return new ApiError('invalid_request', 'the client went away while the first request ran');
}
