/**
 * Reading what another server answered, where that server is not ours to trust: a plugin's
 * archive (the installer) and a plugin command's answer (a broker). Shared by both.
 */

/**
 * At most `max` bytes of a body, counted as they stream (a `Content-Length` can lie, and counts
 * what a compressed body was before `fetch` inflated it); the rest is cancelled unread.
 * Rejects as the stream does when it breaks off.
 */
export async function readUpTo(
  body: ReadableStream<Uint8Array> | null,
  max: number,
): Promise<{ bytes: Buffer; cut: boolean }> {
  if (body === null) return { bytes: Buffer.alloc(0), cut: false };
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { bytes: Buffer.concat(chunks, total), cut: false };
    if (total + value.byteLength > max) {
      chunks.push(value.subarray(0, max - total));
      await reader.cancel().catch(() => {});
      return { bytes: Buffer.concat(chunks, max), cut: true };
    }
    chunks.push(value);
    total += value.byteLength;
  }
}

/**
 * Why a request or read failed, in words for a person or a model: a timeout as such, and fetch's
 * "fetch failed" with the cause it hides ("connect ECONNREFUSED 127.0.0.1:…"). `secret`, when
 * given, is masked wherever it shows (an invalid header value is quoted whole by undici).
 */
export function failureReason(cause: unknown, secret?: string): string {
  let text = String(cause);
  if (cause instanceof Error) {
    const inner = cause.cause instanceof Error ? `: ${cause.cause.message}` : '';
    text = `${cause.name === 'TimeoutError' ? 'timed out' : cause.message}${inner}`;
  }
  return secret === undefined || secret === '' ? text : text.replaceAll(secret, '[token]');
}
