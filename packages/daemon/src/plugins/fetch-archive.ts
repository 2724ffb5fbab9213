/** Reading a plugin's endpoint: `/versions` and the archive, bounded in time and size. */
import { z } from 'zod';
import { ApiError } from '../errors.ts';
import { failureReason, readUpTo } from '../fetch-read.ts';
import { unusable } from './refusal.ts';

/** An archive is a manifest and little else; this bounds what a hostile endpoint can send. */
const MAX_ARCHIVE_BYTES = 8 * 1024 * 1024;
/** Per GET: a manifest from a live endpoint comes back in well under a second. */
const TIMEOUT_MS = 10_000;

const versionsSchema = z.object({
  latest: z.number().int().positive(),
  supported: z.array(z.number().int().positive()).min(1),
});

/** What an answer says before its body is read. */
export type Head = Pick<Response, 'status' | 'headers'>;

export interface Fetched extends Head {
  bytes: Uint8Array;
}

/**
 * GET with the bearer when given, no redirects followed, bounded in time and size. A compressed
 * answer is refused before its body is read: fetch would inflate it first. The body is read
 * only when `wanted` says so from the status and headers.
 */
export async function get(
  url: string,
  token: string | undefined,
  wanted: (answer: Head) => boolean = () => true,
  // Only the archive must come as sent: a proxy that compresses JSON may compress `/versions`,
  // which fetch inflates.
  archive = true,
): Promise<Fetched> {
  const headers = new Headers(token === undefined ? {} : { Authorization: `Bearer ${token}` });
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'GET',
      redirect: 'manual',
      signal: AbortSignal.timeout(TIMEOUT_MS),
      headers,
    });
  } catch (cause) {
    // Not a bad archive: nothing answered at the address given, which the caller can fix (a
    // 4xx, never retried), and is told as such rather than as a failed validation.
    throw new ApiError(
      'invalid_request',
      `could not reach ${url}: ${failureReason(cause, token)}; is the plugin's server running at that address?`,
      { field: 'endpoint' },
    );
  }
  const encoding = response.headers.get('content-encoding');
  if (archive && encoding !== null && encoding.trim().toLowerCase() !== 'identity') {
    await response.body?.cancel().catch(() => {});
    throw unusable(
      `${url} was sent with Content-Encoding: ${encoding}; a plugin archive must not be compressed (a proxy or middleware in front of the handler compresses it)`,
    );
  }
  if (!wanted(response)) {
    await response.body?.cancel().catch(() => {});
    return { status: response.status, headers: response.headers, bytes: new Uint8Array() };
  }
  const bytes = await readBounded(response, url, token);
  return { status: response.status, headers: response.headers, bytes };
}

export async function readBounded(
  response: Response,
  url: string,
  token: string | undefined,
): Promise<Uint8Array> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > MAX_ARCHIVE_BYTES) {
    await response.body?.cancel().catch(() => {});
    throw unusable(`${url} answered more than ${MAX_ARCHIVE_BYTES} bytes`);
  }
  let read: Awaited<ReturnType<typeof readUpTo>>;
  try {
    read = await readUpTo(response.body, MAX_ARCHIVE_BYTES);
  } catch (cause) {
    throw unusable(`reading ${url} failed: ${failureReason(cause, token)}`);
  }
  if (read.cut) throw unusable(`${url} answered more than ${MAX_ARCHIVE_BYTES} bytes`);
  return read.bytes;
}

/** The endpoint's majors from `<endpoint>/versions`, or `null` when it serves none. */
export async function versionsOf(endpoint: string, token: string | undefined) {
  // An unversioned handler answers every GET with its archive, `/versions` included: only a
  // JSON 200 is read, so that archive is not downloaded twice. A JSON 200 claims majors, so
  // it must be a versions document, whether it fails to parse or has another shape.
  const isVersions = (answer: Head) => answer.status === 200 && isJson(answer.headers);
  const answer = await get(`${endpoint}/versions`, token, isVersions, false);
  if (!isVersions(answer)) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(answer.bytes));
  } catch {
    parsed = undefined;
  }
  const versions = versionsSchema.safeParse(parsed);
  if (!versions.success || !versions.data.supported.includes(versions.data.latest)) {
    throw unusable(`${endpoint}/versions is not {"latest": N, "supported": [...]}`);
  }
  return versions.data;
}

function isJson(headers: Headers): boolean {
  return /^application\/(?:[\w.+-]+\+)?json\b/i.test(headers.get('content-type') ?? '');
}
