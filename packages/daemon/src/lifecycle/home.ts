import { chmodSync, mkdirSync } from 'node:fs';
import { type HomePaths, homePaths, socketPathProblem } from '@svc/protocol/home';
import { DaemonError } from '../errors.ts';

/**
 * Creates the home (mode 0700: the socket, database and owner token inside are the person's
 * alone) and its `logs/` folder, and checks the socket path fits in `sun_path`.
 */
export function prepareHome(home: string): HomePaths {
  const paths = homePaths(home);
  const problem = socketPathProblem(paths.socket);
  if (problem !== null)
    throw new DaemonError('socket_path_too_long', `${problem}; choose a shorter --home`);
  mkdirSync(paths.logs, { recursive: true, mode: 0o700 });
  chmodSync(paths.home, 0o700);
  return paths;
}
