/** Reading a command's JSON body without ever buffering more than the configured limit. */
import { PluginError } from '../errors.ts';
import type { JsonObject } from '../types.ts';

// The CORS-safelisted request content types (Fetch, "CORS-safelisted request-header"): a browser
// posts these cross-site without a preflight, so any page the user visits could send one.
const SIMPLE_TYPE =
  /^\s*(?:text\/plain|application\/x-www-form-urlencoded|multipart\/form-data)\s*(?:;|$)/i;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The body's bytes, for `bodyText`, once the checks that need no body pass: those throw their
 * `PluginError` (403, 413) at once, as does a runtime whose read throws rather than rejects (400).
 * The promise rejects with a `PluginError` when the body is counted as it streams (413, 400), else
 * with whatever the runtime's read rejects with, which `readFailure` turns into the 400. Not
 * `async`: the caller awaits the runtime's own promise, so a command waits one turn for its body,
 * where an `async` reader awaited in turn takes two.
 * @param site the public origin behind a proxy (`baseUrl`'s, else `null`) when cross-site posts
 * must be refused; `undefined` under auth, where no such post can pass (said below)
 */
export function readBody(
  request: Request,
  maxBytes: number,
  site: string | null | undefined,
): Promise<ArrayBuffer | Uint8Array> {
  // Any type is read as JSON: `fetch` labels a string body `text/plain` unless told otherwise,
  // and the parse is what decides. Only what a browser may post cross-site without a preflight
  // (no type, or a simple type) is refused when it comes from another site: a command under no
  // auth would otherwise run for whatever page the user's browser has open. Under auth, a request
  // that gets here carries its bearer token, and a browser sends `Authorization` cross-site only
  // after a preflight, as it does `application/json`: the check could never refuse it.
  // Names in lower case, as every runtime stores them: a Headers implementation in JavaScript
  // (@hono/node-server's) then needs no new string for the lookup.
  if (site !== undefined) {
    const type = request.headers.get('content-type');
    if (
      type !== 'application/json' && // the usual value, spared the pattern and the site check
      (type === null || SIMPLE_TYPE.test(type)) &&
      crossSite(request, site)
    ) {
      throw new PluginError(
        403,
        'forbidden',
        'A cross-site browser request must send Content-Type: application/json',
        { field: 'Content-Type', received: type },
      );
    }
  }
  const length = decimal(request.headers.get('content-length'));
  if (length < 0) return readCounted(request, maxBytes);
  if (length > maxBytes) throw tooLarge(maxBytes);
  // The server frames the body by its Content-Length (RFC 9112 §6.3), so reading it whole
  // buffers no more than the limit just checked. As bytes, decoded strictly: `text()` would
  // replace malformed UTF-8 with U+FFFD, and a 4-byte sequence cut short (`F0 9F 98`) becomes one
  // U+FFFD of the same three bytes, which nothing after the decode can tell from one the client
  // sent. On @hono/node-server this costs an ArrayBuffer copy that `text()` spares.
  try {
    return request.arrayBuffer();
  } catch {
    throw unreadable();
  }
}

/** What a failed `readBody` answers: its own refusal, or the 400 of a body that could not be read. */
export function readFailure(thrown: unknown): PluginError {
  return thrown instanceof PluginError ? thrown : unreadable();
}

/** The text of the bytes `readBody` read, for `parseObject`: strict UTF-8, within the limit. */
export function bodyText(bytes: ArrayBuffer | Uint8Array, maxBytes: number): string {
  // A Request built by hand may understate its body, which no server frames.
  if (bytes.byteLength > maxBytes) throw tooLarge(maxBytes);
  return decode(bytes);
}

/**
 * Whether a browser sent the request from another origin: `Sec-Fetch-Site` when it says (every
 * current browser does), else an `Origin` other than the request's own or, behind a proxy, the
 * `baseUrl`'s. Other clients send neither.
 */
function crossSite(request: Request, publicOrigin: string | null): boolean {
  const site = request.headers.get('sec-fetch-site');
  if (site !== null) return site !== 'same-origin' && site !== 'none';
  const origin = request.headers.get('origin');
  return origin !== null && origin !== publicOrigin && origin !== new URL(request.url).origin;
}

/**
 * A `Content-Length` as a number, or -1 when there is none or it is not plain decimal digits
 * (RFC 9110 §8.6). A length past 2^53 comes out inexact but still past any limit. A loop: it
 * runs on every command, and a pattern and `Number` cost several times as much.
 */
function decimal(value: string | null): number {
  if (value === null || value.length === 0) return -1;
  let n = 0;
  for (let i = 0; i < value.length; i++) {
    const digit = value.charCodeAt(i) - 0x30;
    if (digit < 0 || digit > 9) return -1;
    n = n * 10 + digit;
  }
  return n;
}

export function decode(bytes: AllowSharedBufferSource): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw notUtf8();
  }
}

/** The body's text as the command's input: a JSON object, `{}` for no body, else a 400. */
export function parseObject(text: string): JsonObject {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    if (text.trim() === '') return {};
    throw new PluginError(400, 'invalid_request', 'The body is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new PluginError(400, 'invalid_request', 'The body must be a JSON object');
  }
  return value as JsonObject;
}

/**
 * Counts streamed bytes: without Content-Length (chunked), nothing else bounds the body; and a
 * fetched response's Content-Length counts the bytes before its decompression. Cancels the rest
 * past the limit. Rejects only with a `PluginError`: a body another reader holds is one that
 * could not be read.
 */
export async function readCounted(
  message: { readonly body: ReadableStream<Uint8Array> | null },
  maxBytes: number,
): Promise<Uint8Array> {
  let reader: ReadableStreamDefaultReader<Uint8Array>;
  try {
    if (message.body === null) return new Uint8Array();
    reader = message.body.getReader();
  } catch {
    throw unreadable();
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    let chunk: ReadableStreamReadResult<Uint8Array>;
    try {
      chunk = await reader.read();
    } catch {
      throw unreadable();
    }
    if (chunk.done) break;
    total += chunk.value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge(maxBytes);
    }
    chunks.push(chunk.value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

function notUtf8(): PluginError {
  return new PluginError(400, 'invalid_request', 'The body is not valid UTF-8');
}

function unreadable(): PluginError {
  return new PluginError(400, 'invalid_request', 'The body could not be read');
}

function tooLarge(maxBytes: number): PluginError {
  return new PluginError(413, 'payload_too_large', `The body exceeds ${maxBytes} bytes`);
}
