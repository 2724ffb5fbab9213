import { DEFAULT_MEDIA_TYPE, mediaTypeSchema } from '@svc/protocol';
import type { DaemonContext } from '../context.ts';
import type { Call } from '../http/call.ts';
import { mount, type Routes } from '../http/route.ts';
import type { Principal } from '../ports.ts';

/**
 * What an attachment link answers besides its bytes: always a download (never shown inline by
 * the daemon's origin), never sniffed into another type, sandboxed should a browser render it
 * anyway, and never cached or referred onward (the URL is the credential).
 */
function contentHeaders(upload: { filename: string; media_type: string }): Record<string, string> {
  return {
    'Content-Type': servedType(upload.media_type),
    'Content-Disposition': contentDisposition(upload.filename),
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': 'sandbox',
    'Cache-Control': 'private, no-store',
    'Referrer-Policy': 'no-referrer',
  };
}

/**
 * The stored media type when it is one `uploads.create` takes today; a row stored before that
 * check was strict (a CR, LF or non-Latin-1 character in it) would not be a header node sends,
 * and every link to it would fail, so it is served as plain bytes instead.
 */
function servedType(stored: string): string {
  return mediaTypeSchema.safeParse(stored).success ? stored : DEFAULT_MEDIA_TYPE;
}

/**
 * `attachment` with the name twice (RFC 6266 §4.3): an ASCII fallback with anything a quoted
 * string cannot hold replaced, and the exact name as RFC 8187 `filename*`.
 */
function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  const exact = encodeURIComponent(filename).replace(
    /['()*]/g,
    (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${ascii}"; filename*=UTF-8''${exact}`;
}

/** The `uploads` and `attachments` routes (docs/api-v1.md "Uploads and attachments"). */
export function registerUploads(app: Routes, ctx: DaemonContext): void {
  const who = (c: Call): Principal => c.principal!;

  mount(app, 'uploads.create', async (c, { body }) =>
    c.json(await ctx.uploads.createBase64(body, who(c))),
  );
  mount(app, 'uploads.createRaw', async (c, { query }) =>
    c.json(await ctx.uploads.createRaw(c.input.raw, query, who(c))),
  );
  mount(app, 'uploads.retrieve', (c, { params }) => c.json(ctx.uploads.get(params.id, who(c))));
  mount(app, 'uploads.delete', (c, { params }) => c.json(ctx.uploads.delete(params.id, who(c))));

  mount(app, 'attachments.link', (c, { query }) =>
    c.json(ctx.attachments.link(query.upload_id, query.ttl_s, who(c))),
  );
  mount(app, 'attachments.content', async (c, { params, query }) => {
    const { upload, bytes } = await ctx.attachments.open(params.id, query.expires, query.sig);
    return c.body(bytes, 200, contentHeaders(upload));
  });
}
