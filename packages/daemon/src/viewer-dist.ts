import { fileURLToPath } from 'node:url';

/**
 * The viewer's build beside this package in the monorepo (`npm run build -w @svc/viewer`, run at
 * install). A module of its own: `@svc/daemon` exports it without loading the daemon.
 */
export const DEFAULT_VIEWER_DIST = fileURLToPath(new URL('../../viewer/dist/', import.meta.url));
