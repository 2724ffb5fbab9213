import { readFileSync } from 'node:fs';
import { parseScopeList, ScopeError } from '@svc/protocol';
import { ApiError, DaemonError } from '../errors.ts';
import { checkHost } from '../http/host-guard.ts';
import type { TcpInfo } from '../ports.ts';
import type { TokenService } from '../tokens/service.ts';

export interface ConnectInput {
  app_id?: string | undefined;
  scopes?: string[] | undefined;
  expires_in_s?: number | undefined;
  host?: string | undefined;
  port?: number | undefined;
}

/**
 * `svc sys connect`: turns the TCP listener on when it is off and returns its base URL with a
 * bearer — the owner token, or with `app_id` a new app token whose scope list is its ceiling.
 * Every check runs before anything changes.
 */
export interface ConnectDeps {
  tokens: Pick<TokenService, 'ensureOwner' | 'mintApp'>;
  ownerTokenFile: string;
  enableTcp(opts: { host?: string | undefined; port?: number | undefined }): Promise<TcpInfo>;
}

export async function connect(ctx: ConnectDeps, input: ConnectInput) {
  if (input.app_id === undefined) {
    for (const field of ['scopes', 'expires_in_s'] as const) {
      if (input[field] !== undefined) {
        throw new ApiError(
          'invalid_request',
          `${field} requires app_id: it applies to an app token, not the owner token`,
          {
            field,
          },
        );
      }
    }
  }
  const scopes = parseScopes(input.scopes ?? []);
  // Checked before the listener is asked: while it is on, a bad host would read as "on elsewhere".
  if (input.host !== undefined) {
    try {
      checkHost(input.host);
    } catch (error) {
      listenerError(error);
    }
  }
  const tcp = await ctx.enableTcp({ host: input.host, port: input.port }).catch(listenerError);

  if (input.app_id === undefined) {
    const owner = ctx.tokens.ensureOwner(ctx.ownerTokenFile);
    return {
      base_url: tcp.base_url,
      token: readFileSync(ctx.ownerTokenFile, 'utf8').trim(),
      token_id: owner.id,
      app_id: null,
      scopes: null,
      expires_at: null,
    };
  }
  const expiresAt =
    input.expires_in_s === undefined
      ? null
      : new Date(Date.now() + input.expires_in_s * 1000).toISOString();
  const { secret, dto } = ctx.tokens.mintApp(input.app_id, scopes, expiresAt);
  return {
    base_url: tcp.base_url,
    token: secret,
    token_id: dto.id,
    app_id: dto.app_id,
    scopes: dto.scopes,
    expires_at: dto.expires_at,
  };
}

/** A listener that cannot start as asked is the caller's input problem, not a daemon bug. */
function listenerError(error: unknown): never {
  if (error instanceof TypeError) {
    throw new ApiError('invalid_request', error.message, {
      field: error.message.includes('port') ? 'port' : 'host',
    });
  }
  if (error instanceof DaemonError && error.code === 'tcp_already_on') {
    throw new ApiError(
      'invalid_state',
      `${error.message}; omit host and port, or stop the daemon to change them`,
    );
  }
  if (error instanceof DaemonError && error.code === 'tcp_listen_failed') {
    throw new ApiError('invalid_request', error.message, { field: 'port' });
  }
  throw error;
}

function parseScopes(scopes: readonly string[]): string[] {
  try {
    return parseScopeList(scopes);
  } catch (error) {
    if (!(error instanceof ScopeError)) throw error;
    throw new ApiError('invalid_request', error.message, {
      field: 'scopes',
      received: error.scope,
    });
  }
}
