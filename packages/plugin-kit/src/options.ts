/** Checks `createFetchHandler` options once and merges their defaults. */
import { isObject } from './is-object.ts';
import { VERSION_SEGMENT } from './routing/routes.ts';
import type { AuthMode, FetchHandlerOptions } from './types.ts';

const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
// Visible ASCII: what every client sends after `Bearer ` as it was typed (RFC 6750's b64token
// is within it), and what the installer accepts to fetch a guarded archive. A header may carry
// Latin-1 too, but a UTF-8 terminal sends `é` as two bytes that would never match.
const BEARER_VALUE = /^[\x21-\x7e]+$/;

const OPTION_KEYS = ['token', 'auth', 'baseUrl', 'maxBodyBytes', 'logger', 'jwks'];
const AUTH_KEYS = ['issuer', 'audience'];
const JWKS_KEYS = ['cooldownMs', 'timeoutMs', 'cacheMaxAgeMs', 'fetch'];

/** Throws a `TypeError` naming the first own key of `value` that is not one of `known`. */
function knownKeys(value: object, known: readonly string[], at: string): void {
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) {
      throw new TypeError(`${at}.${key} is not an option; known: ${known.join(', ')}`);
    }
  }
}

export interface ResolvedOptions {
  authMode: AuthMode;
  /** The mount path from `baseUrl`, without a trailing slash; `null` to take it from each request. */
  mount: string | null;
  /** The origin of `baseUrl`, which a browser behind a proxy names as its own; else `null`. */
  origin: string | null;
  maxBodyBytes: number;
  logger: Logger;
}

/** @param versioned whether the handler serves majors (a list, or a definition with `version`) */
export function resolveOptions(options: FetchHandlerOptions, versioned: boolean): ResolvedOptions {
  if (!isObject(options as unknown)) throw new TypeError('options must be an object');
  // A misspelt `token` would otherwise serve the plugin without authentication.
  knownKeys(options, OPTION_KEYS, 'options');
  const { token, auth, baseUrl, jwks, maxBodyBytes = DEFAULT_MAX_BODY_BYTES } = options;
  if (
    options.logger !== undefined &&
    typeof (options.logger as unknown as Logger)?.warn !== 'function'
  ) {
    throw new TypeError('options.logger must be an object with a warn(message) function');
  }
  const logger = safeLogger(options.logger ?? console);
  if (token !== undefined && auth !== undefined) {
    throw new TypeError('options.token and options.auth are exclusive: pass one of them');
  }
  if (token !== undefined && !(typeof token === 'string' && BEARER_VALUE.test(token))) {
    // A token read from a file often ends in a newline, which no request can send back.
    throw new TypeError(
      'options.token must be a non-empty string of visible ASCII characters, without white space (trim a token read from a file)',
    );
  }
  if (auth !== undefined) {
    if (!isObject(auth as unknown)) {
      throw new TypeError('options.auth must be an object { issuer, audience }');
    }
    knownKeys(auth, AUTH_KEYS, 'options.auth');
    if (!isHttpUrl(auth.issuer)) throw new TypeError('options.auth.issuer must be an http(s) URL');
    if (typeof auth.audience !== 'string' || auth.audience === '') {
      throw new TypeError('options.auth.audience must be a non-empty string');
    }
  }
  if (jwks !== undefined && !isObject(jwks as unknown)) {
    throw new TypeError('options.jwks must be an object');
  }
  if (jwks !== undefined) knownKeys(jwks, JWKS_KEYS, 'options.jwks');
  if (jwks?.fetch !== undefined && typeof jwks.fetch !== 'function') {
    throw new TypeError('options.jwks.fetch must be a function like fetch');
  }
  for (const key of ['cooldownMs', 'timeoutMs', 'cacheMaxAgeMs'] as const) {
    const value = jwks?.[key];
    if (value !== undefined && !(Number.isSafeInteger(value) && value >= 0)) {
      throw new TypeError(`options.jwks.${key} must be a non-negative integer of milliseconds`);
    }
  }
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes <= 0) {
    throw new TypeError('options.maxBodyBytes must be a positive integer');
  }
  const authMode: AuthMode =
    token !== undefined ? 'token' : auth !== undefined ? 'directory' : 'none';
  return {
    authMode,
    ...(baseUrl === undefined ? { mount: null, origin: null } : base(baseUrl, versioned)),
    maxBodyBytes,
    logger,
  };
}

/** The one warning of a handler made without `token` or `auth`, logged once it has been made. */
export function unauthenticated(pluginName: string): string {
  return (
    `plugin "${pluginName}" is served without authentication: anyone who reaches it can run ` +
    'its commands; pass { token } or { auth } to createFetchHandler'
  );
}

/**
 * The mount path and origin of `baseUrl`, the public URL of the mount: absolute, and, when
 * versions are served, without `/v<N>`, which the handler adds per major (SPEC, Versioning 4).
 * An unversioned plugin adds none, so its mount may hold one (`https://pub.example/api/v1/…`).
 */
function base(baseUrl: string, versioned: boolean): { mount: string; origin: string } {
  if (!isHttpUrl(baseUrl)) {
    throw new TypeError(
      `options.baseUrl must be an absolute http(s) URL, got ${JSON.stringify(baseUrl)}`,
    );
  }
  const { pathname, origin } = new URL(baseUrl);
  if (versioned && pathname.split('/').some((segment) => VERSION_SEGMENT.test(segment))) {
    throw new TypeError(
      `options.baseUrl must not contain a /v<N> segment when versions are served (the handler adds it per major), got ${baseUrl}`,
    );
  }
  return { mount: pathname.replace(/\/+$/, ''), origin };
}

/**
 * The logger the handler calls: one whose `warn` throws must not turn an answer into a rejected
 * promise (a request's failure is logged on its way to the 500), so what it throws is dropped.
 */
type Logger = { warn(message: string): void };

function safeLogger(logger: Logger): Logger {
  return {
    warn(message) {
      try {
        logger.warn(message);
      } catch {}
    },
  };
}

function isHttpUrl(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  try {
    const { protocol } = new URL(value);
    return protocol === 'https:' || protocol === 'http:';
  } catch {
    return false;
  }
}
