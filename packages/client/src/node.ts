import { readFileSync } from 'node:fs';
import { homePaths, resolveHome } from '@svc/protocol/home';
import { Agent, type RequestInit as UndiciRequestInit, fetch as undiciFetch } from 'undici';
import { type ClientOptions, Svc } from './client.ts';
import { SvcError } from './core/errors.ts';

export * from './index.ts';

export interface LocalClientOptions extends Omit<ClientOptions, 'baseUrl' | 'token' | 'fetch'> {
  /** The daemon's home. Default: `SVC_HOME`, else `~/.svc`. */
  home?: string;
}

/**
 * A client of the local daemon: HTTP over its unix socket (`<home>/daemon.sock`) with the owner
 * token read from `<home>/owner.token`. Node only; the main entry stays runtime-neutral.
 */
export function createLocalClient(options: LocalClientOptions = {}): Svc {
  const { home, ...rest } = options;
  const paths = homePaths(resolveHome(home));
  let token: string;
  try {
    token = readFileSync(paths.ownerToken, 'utf8').trim();
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code !== 'ENOENT') throw cause;
    throw new SvcError(
      'daemon_not_found',
      `No svc daemon home at ${paths.home} (${paths.ownerToken} is missing). ` +
        'Start one with `svc daemon start`.',
      { cause },
    );
  }
  const dispatcher = new Agent({ connect: { socketPath: paths.socket } });
  return new Svc({
    ...rest,
    // The daemon accepts Host `localhost` on its socket; the host part is otherwise unused.
    baseUrl: 'http://localhost',
    token,
    fetch: (url, init) =>
      undiciFetch(url, {
        ...(init as UndiciRequestInit),
        dispatcher,
      }) as unknown as Promise<Response>,
  });
}
