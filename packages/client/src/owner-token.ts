/**
 * The owner token of a daemon home, as every local client reads it (`@svc/client/node`, the
 * CLI's own socket client): a subpath of its own, so a caller that brings its own transport
 * reads it without loading undici. Node only.
 */
import { readFileSync } from 'node:fs';
import type { HomePaths } from '@svc/protocol/home';
import { SvcError } from './core/errors.ts';

/** `<home>/owner.token`; `daemon_not_found` when the home has none. */
export function readOwnerToken(paths: Pick<HomePaths, 'home' | 'ownerToken'>): string {
  try {
    return readFileSync(paths.ownerToken, 'utf8').trim();
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code !== 'ENOENT') throw cause;
    throw new SvcError(
      'daemon_not_found',
      `No svc daemon home at ${paths.home} (${paths.ownerToken} is missing). ` +
        'Start one with `svc daemon start`.',
      { cause },
    );
  }
}
