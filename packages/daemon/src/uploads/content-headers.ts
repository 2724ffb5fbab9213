import { DEFAULT_MEDIA_TYPE, mediaTypeSchema } from '@svc/protocol';

/**
 * What an attachment link answers besides its bytes: always a download (never shown inline by
 * the daemon's origin), never sniffed into another type, sandboxed should a browser render it
 * anyway, and never cached or referred onward (the URL is the credential).
 */
export function contentHeaders(upload: {
  filename: string;
  media_type: string;
}): Record<string, string> {
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
