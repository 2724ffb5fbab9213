/** Reading a command's JSON body without ever buffering more than the configured limit. */
import { PluginError } from '../errors.ts';
import type { JsonObject } from '../types.ts';

// `application/json`, `application/<anything>+json` (RFC 6839 §3.1), with any parameters.
const JSON_MEDIA_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

export async function readJsonBody(request: Request, maxBytes: number): Promise<JsonObject> {
  const type = request.headers.get('Content-Type');
  if (type !== null && type.trim() !== '' && !JSON_MEDIA_TYPE.test(type.trim())) {
    throw new PluginError(415, 'unsupported_media_type', 'The body must be application/json', {
      field: 'Content-Type',
      received: type,
    });
  }
  const declared = request.headers.get('Content-Length');
  if (declared !== null && Number(declared) > maxBytes) throw tooLarge(maxBytes);
  const bytes = await readLimited(request, maxBytes);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new PluginError(400, 'invalid_request', 'The body is not valid UTF-8');
  }
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new PluginError(400, 'invalid_request', 'The body is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new PluginError(400, 'invalid_request', 'The body must be a JSON object');
  }
  return value as JsonObject;
}

/** Counts streamed bytes too: `Content-Length` may be absent (chunked) or a lie. */
async function readLimited(request: Request, maxBytes: number): Promise<Uint8Array> {
  if (request.body === null) return new Uint8Array();
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    let chunk: ReadableStreamReadResult<Uint8Array>;
    try {
      chunk = await reader.read();
    } catch {
      throw new PluginError(400, 'invalid_request', 'The body could not be read');
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

function tooLarge(maxBytes: number): PluginError {
  return new PluginError(413, 'payload_too_large', `The body exceeds ${maxBytes} bytes`);
}
