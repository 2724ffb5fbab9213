import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { ViewerLink } from '@svc/protocol';
import type { Context } from '../context.ts';
import { EXIT, UsageError } from '../errors.ts';

/**
 * `svc sys connect --open`: turns the TCP listener on (as `svc sys connect` does), asks the
 * daemon for a one-time login link and opens it in the person's browser. The link, not a token,
 * is what reaches the browser: it works once, within 60 s, and leaves only an HttpOnly cookie.
 * Without a browser to open (no opener, `--no-browser`, `SVC_NO_BROWSER=1`) it prints the link.
 */
export async function openViewer(
  ctx: Context,
  opts: { app?: string; scopes?: string[]; expiresIn?: string; browser?: boolean },
  body: Record<string, unknown>,
): Promise<number> {
  if (opts.app !== undefined || opts.scopes !== undefined || opts.expiresIn !== undefined) {
    throw new UsageError(
      '--open opens the viewer for you, the owner; it takes no --app, --scopes or --expires-in',
    );
  }
  const client = await ctx.client();
  await client.request('POST', '/v1/connect', body);
  const link = (await client.request('POST', '/v1/viewer/links', {})) as ViewerLink;
  const quiet = opts.browser === false || ctx.io.env.SVC_NO_BROWSER === '1';
  const opener = quiet ? null : platformOpener(ctx.io.env.PATH);
  if (opener !== null) launch(opener, link.url);
  ctx.out.result({ url: link.url, expires_at: link.expires_at }, () =>
    opener === null ? `open this link within 60 s: ${link.url}` : `opened ${link.url}`,
  );
  return EXIT.ok;
}

/** The platform's "open this URL" command when it is on `PATH`: `open` (macOS), else `xdg-open`. */
export function platformOpener(path: string | undefined): string | null {
  const name = process.platform === 'darwin' ? 'open' : 'xdg-open';
  for (const dir of (path ?? '').split(delimiter)) {
    if (dir === '') continue;
    try {
      accessSync(join(dir, name), constants.X_OK);
      return join(dir, name);
    } catch {}
  }
  return null;
}

/** Detached and unwaited: the browser outlives `svc`, and its failure is no error of ours. */
function launch(opener: string, url: string): void {
  try {
    const child = spawn(opener, [url], { detached: true, stdio: 'ignore' });
    child.on('error', () => {});
    child.unref();
  } catch {}
}
