/**
 * The headers of every viewer answer, and the few pages the daemon writes itself (no build
 * yet, a used login link). The policy allows this origin's own files only: no inline script or
 * style, no frame around the viewer, no base or form target elsewhere.
 */
export const VIEWER_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
  "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

export function viewerHeaders(headers: Record<string, string> = {}): Record<string, string> {
  headers['Content-Security-Policy'] = VIEWER_CSP;
  headers['X-Content-Type-Options'] = 'nosniff';
  headers['Referrer-Policy'] = 'no-referrer';
  return headers;
}

/** A minimal page: a title and a few paragraphs of text (escaped), no script, no style. */
export function htmlPage(title: string, paragraphs: readonly string[]): string {
  const body = paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('\n');
  return (
    `<!doctype html>\n<html lang="en">\n<head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<title>${escapeHtml(title)}</title></head>\n` +
    `<body><main><h1>${escapeHtml(title)}</h1>\n${body}\n</main></body>\n</html>\n`
  );
}

export const NOT_BUILT_PAGE = htmlPage('svc viewer: not built', [
  'The daemon serves the web viewer from packages/viewer/dist, which does not exist yet.',
  'npm install (or npm ci) builds it; so do npm start and npm test. Build it by hand with `npm run build -w @svc/viewer`, then reload this page (`svc status` says whether it is built).',
]);

export const LINK_USED_PAGE = htmlPage('svc viewer: link used or expired', [
  'This login link was already used, or it expired (a link works once, within 60 seconds).',
  'Run `svc sys connect --open` again for a new one.',
]);

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}
