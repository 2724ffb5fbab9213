import { randomUUID } from 'node:crypto';
import { userInfo } from 'node:os';
import { ApiError } from '../errors.ts';
import type { DirectoryDeps } from './deps.ts';

/** DESIGN §5: `exp` at most 5 min after issue. */
const TOKEN_SECONDS = 300;

// The person whose daemon this is: the account it runs under.
const PERSON = safeUserName();

/**
 * The signed token: `iss` the TCP listener (where the JWKS is), `aud` the endpoint as
 * installed, `sub` the person, a fresh `jti`, `exp` within 5 min; `claims` say who calls.
 */
export async function signDirectoryToken(
  { keys, tcp }: Pick<DirectoryDeps, 'keys' | 'tcp'>,
  audience: string,
  scope: string,
  claims: {
    grantee: string;
    client_id: string;
    initiating_app: string;
    act: { sub: string };
    run_id?: string;
  },
) {
  const listener = tcp();
  if (listener === null) {
    throw new ApiError(
      'invalid_state',
      "the daemon's directory is served on its TCP listener, which is off: turn it on with svc sys connect, or svc daemon start --tcp HOST:PORT",
    );
  }
  const now = Math.floor(Date.now() / 1000);
  const token = await keys.sign({
    iss: listener.base_url,
    aud: audience,
    sub: PERSON,
    ...claims,
    scope,
    jti: randomUUID(),
    iat: now,
    exp: now + TOKEN_SECONDS,
  });
  return { token, expires_at: new Date((now + TOKEN_SECONDS) * 1000).toISOString() };
}

function safeUserName(): string {
  try {
    return userInfo().username || 'owner';
  } catch {
    return 'owner';
  }
}
