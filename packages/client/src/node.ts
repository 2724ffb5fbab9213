import { homePaths, resolveHome } from '@svc/protocol/home';
import { Agent, type RequestInit as UndiciRequestInit, fetch as undiciFetch } from 'undici';
import { Svc as BaseSvc, type ClientOptions } from './client.ts';
import { readEnv } from './internal/env.ts';
import { readOwnerToken } from './owner-token.ts';

export * from './index.ts';

export interface LocalClientOptions extends Omit<ClientOptions, 'baseUrl' | 'fetch'> {
  /** The daemon's home. Default: `SVC_HOME`, else `~/.svc`. */
  home?: string;
}

/**
 * The client, with one more default than the main entry's (DESIGN §7): with no base URL (neither
 * `baseUrl` nor `SVC_BASE_URL`), it talks to the local daemon over its socket, with `token` or
 * `SVC_TOKEN` when given and the owner token of the home otherwise. Node only, like this subpath.
 */
export class Svc extends BaseSvc {
  constructor(options: ClientOptions & { home?: string } = {}) {
    const { home, ...rest } = options;
    const remote = rest.baseUrl ?? readEnv('SVC_BASE_URL');
    // The local socket is reached through its own fetch: a caller's would be set aside unseen.
    if (remote === undefined && rest.fetch !== undefined) {
      throw new TypeError(
        'options.fetch needs options.baseUrl (or SVC_BASE_URL): without one the client talks to the local daemon over its socket',
      );
    }
    super(
      remote === undefined ? { ...rest, ...local(home, rest.token ?? readEnv('SVC_TOKEN')) } : rest,
    );
  }
}

export default Svc;

/**
 * A client of the local daemon: HTTP over its unix socket (`<home>/daemon.sock`) with `token`, or
 * the owner token read from `<home>/owner.token`; whatever `SVC_BASE_URL` and `SVC_TOKEN` say.
 */
export function createLocalClient(options: LocalClientOptions = {}): Svc {
  const { home, token, ...rest } = options;
  return new Svc({ ...rest, ...local(home, token) });
}

/** The socket transport of the daemon at `home`, and `token` or its owner token. */
function local(
  home: string | undefined,
  token: string | undefined,
): Required<Pick<ClientOptions, 'baseUrl' | 'token' | 'fetch'>> {
  const paths = homePaths(resolveHome(home));
  const dispatcher = new Agent({ connect: { socketPath: paths.socket } });
  return {
    // The daemon accepts Host `localhost` on its socket; the host part is otherwise unused.
    baseUrl: 'http://localhost',
    token: token ?? readOwnerToken(paths),
    fetch: (url, init) =>
      undiciFetch(url, {
        ...(init as UndiciRequestInit),
        dispatcher,
      }) as unknown as Promise<Response>,
  };
}
