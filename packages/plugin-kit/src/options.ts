/** Checks `createFetchHandler` options once and merges their defaults. */
import type { AuthMode, FetchHandlerOptions } from './types.ts';

const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

export interface ResolvedOptions {
  authMode: AuthMode;
  /** The mount path from `baseUrl`, without a trailing slash; `null` to take it from each request. */
  mount: string | null;
  /** The origin of `baseUrl`, which a browser behind a proxy names as its own; else `null`. */
  origin: string | null;
  maxBodyBytes: number;
  logger: { warn(message: string): void };
}

/** @param versioned whether the handler serves majors (a list, or a definition with `version`) */
export function resolveOptions(
  options: FetchHandlerOptions,
  pluginName: string,
  versioned: boolean,
): ResolvedOptions {
  const { token, auth, baseUrl, maxBodyBytes = DEFAULT_MAX_BODY_BYTES } = options;
  const logger = options.logger ?? console;
  if (token !== undefined && auth !== undefined) {
    throw new TypeError('options.token and options.auth are exclusive: pass one of them');
  }
  if (token !== undefined && (typeof token !== 'string' || token === '')) {
    throw new TypeError('options.token must be a non-empty string');
  }
  if (auth !== undefined) {
    if (!isHttpUrl(auth.issuer)) throw new TypeError('options.auth.issuer must be an http(s) URL');
    if (typeof auth.audience !== 'string' || auth.audience === '') {
      throw new TypeError('options.auth.audience must be a non-empty string');
    }
  }
  for (const key of ['cooldownMs', 'timeoutMs', 'cacheMaxAgeMs'] as const) {
    const value = options.jwks?.[key];
    if (value !== undefined && !(Number.isSafeInteger(value) && value >= 0)) {
      throw new TypeError(`options.jwks.${key} must be a non-negative integer of milliseconds`);
    }
  }
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes <= 0) {
    throw new TypeError('options.maxBodyBytes must be a positive integer');
  }
  const authMode: AuthMode =
    token !== undefined ? 'token' : auth !== undefined ? 'directory' : 'none';
  if (authMode === 'none') {
    logger.warn(
      `plugin "${pluginName}" is served without authentication: anyone who reaches it can run ` +
        'its commands; pass { token } or { auth } to createFetchHandler',
    );
  }
  return {
    authMode,
    ...(baseUrl === undefined ? { mount: null, origin: null } : base(baseUrl, versioned)),
    maxBodyBytes,
    logger,
  };
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
  if (versioned && pathname.split('/').some((segment) => /^v[0-9]+$/.test(segment))) {
    throw new TypeError(
      `options.baseUrl must not contain a /v<N> segment when versions are served (the handler adds it per major), got ${baseUrl}`,
    );
  }
  return { mount: pathname.replace(/\/+$/, ''), origin };
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
