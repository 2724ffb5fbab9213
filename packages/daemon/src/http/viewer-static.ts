import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ApiError } from '../errors.ts';
import type { Call, Reply } from './call.ts';
import { errorResponse } from './errors.ts';
import type { Listener } from './listener.ts';
import { VIEWER_SESSION_TTL_MS, viewerCookieName } from './viewer-auth.ts';
import { LIVE_PREFIX, serveLive, type ViewerLiveDeps } from './viewer-live.ts';
import { LINK_USED_PAGE, NOT_BUILT_PAGE, viewerHeaders } from './viewer-pages.ts';

const HTML = 'text/html; charset=utf-8';
// What a Vite build emits; anything else under assets/ is no file of ours.
const CONTENT_TYPES: Readonly<Record<string, string>> = {
  js: 'text/javascript; charset=utf-8',
  mjs: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  map: 'application/json; charset=utf-8',
  json: 'application/json; charset=utf-8',
  svg: 'image/svg+xml',
  png: 'image/png',
  ico: 'image/x-icon',
  woff2: 'font/woff2',
  txt: 'text/plain; charset=utf-8',
};
/** What the viewer's pages read: its build, its login, and what its live view reads. */
export interface ViewerPageDeps extends ViewerLiveDeps {
  viewerDist: string;
  viewer: ViewerLiveDeps['viewer'] & {
    /** Spends a login link's code: the new session, or `null` for a used or unknown code. */
    login(code: string): { secret: string; key: string } | null;
  };
}

/** One file name: no separator, no escape, no leading dot, so nothing leaves `assets/`. */
const ASSET_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*\.([a-z0-9]+)$/;
const ASSETS = '/viewer/assets/';

/** The paths the viewer answers on the TCP listener (the unix socket has no browser). */
export function isViewerPath(path: string): boolean {
  return path === '/' || path === '/viewer' || path.startsWith('/viewer/');
}

/**
 * The viewer's pages: `index.html` (never cached: it names the current build's files), the
 * build's hashed assets (cached for good: a new build has new names), and the login link. The
 * build is read from `ctx.viewerDist` on each request, so a daemon started before the build
 * serves it once it exists, and answers 503 saying how to build it until then. The TCP
 * listener's port names the session cookie. `/viewer/live/nodes/{id}` is the page's live view of
 * a node's model writing (`viewer-live.ts`).
 */
export function serveViewer(
  c: Call,
  ctx: ViewerPageDeps,
  listener: Extract<Listener, { kind: 'tcp' }>,
): Reply | Promise<Reply> {
  const path = c.path;
  const port = listener.port;
  if (c.method !== 'GET' && c.method !== 'HEAD') {
    const error = new ApiError('method_not_allowed', `${path} allows GET, HEAD, not ${c.method}`);
    return errorResponse(c, error, viewerHeaders({ Allow: 'GET, HEAD' }));
  }
  if (path === '/' || path === '/viewer') {
    return c.body(null, 302, viewerHeaders({ Location: '/viewer/' }));
  }
  if (path === '/viewer/login') {
    // A HEAD (a link preview, a prefetch) must not spend the one use of the code.
    if (c.method === 'HEAD') {
      const error = new ApiError('method_not_allowed', `${path} allows GET only`);
      return errorResponse(c, error, viewerHeaders({ Allow: 'GET' }));
    }
    return login(c, ctx, port);
  }
  if (path.startsWith(LIVE_PREFIX) && c.method === 'GET') return serveLive(c, ctx, listener);
  if (path === '/viewer/' || path === '/viewer/index.html') {
    const index = readDist(ctx.viewerDist, 'index.html');
    if (index === null) {
      return c.body(
        NOT_BUILT_PAGE,
        503,
        viewerHeaders({ 'Content-Type': HTML, 'Cache-Control': 'no-store' }),
      );
    }
    return c.body(index, 200, viewerHeaders({ 'Content-Type': HTML, 'Cache-Control': 'no-cache' }));
  }
  if (path.startsWith(ASSETS)) {
    const name = path.slice(ASSETS.length);
    const type = CONTENT_TYPES[ASSET_NAME.exec(name)?.[1] ?? ''];
    const bytes = type === undefined ? null : readDist(ctx.viewerDist, 'assets', name);
    if (type !== undefined && bytes !== null) {
      return c.body(
        bytes,
        200,
        viewerHeaders({
          'Content-Type': type,
          'Cache-Control': 'public, max-age=31536000, immutable',
        }),
      );
    }
  }
  return errorResponse(c, new ApiError('not_found', `no viewer file ${path}`), viewerHeaders());
}

/**
 * `GET /viewer/login?code=…`: a valid unused code opens a session whose secret goes only into an
 * HttpOnly, SameSite=Strict cookie, and the browser is sent on to `/viewer/` with the session's
 * page key in the fragment (which no server is sent: the page keeps it and sends it back as
 * `Svc-Viewer`), so the code leaves the address bar; any other code gets a page saying to ask
 * for a new link.
 */
function login(c: Call, ctx: ViewerPageDeps, port: number): Reply {
  const code = new URLSearchParams(c.query).get('code');
  const session = code === null ? null : ctx.viewer.login(code);
  if (session === null) {
    return c.body(
      LINK_USED_PAGE,
      401,
      viewerHeaders({ 'Content-Type': HTML, 'Cache-Control': 'no-store' }),
    );
  }
  const maxAge = Math.floor(VIEWER_SESSION_TTL_MS / 1000);
  return c.body(
    null,
    303,
    viewerHeaders({
      Location: `/viewer/#key=${session.key}`,
      'Set-Cookie': `${viewerCookieName(port)}=${session.secret}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${maxAge}`,
      'Cache-Control': 'no-store',
    }),
  );
}

/** A file of the build, or `null` when it is not there (no build, or no such file). */
function readDist(dist: string, ...parts: string[]): Buffer | null {
  try {
    return readFileSync(join(dist, ...parts));
  } catch {
    return null;
  }
}
