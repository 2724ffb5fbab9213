import { timingSafeEqual } from 'node:crypto';
import { isId } from '@svc/protocol';
import { ApiError } from '../errors.ts';
import type { AttachmentDeps } from './attachment-deps.ts';
import type { Upload } from './store.ts';

const EXPIRES = /^\d{1,12}$/;

/** One answer for every dead link, so a caller never learns which check failed. */
function dead(): ApiError {
  return new ApiError('not_found', 'this attachment link is invalid or has expired');
}

/**
 * The upload a link names, once its signature and expiry hold; else 404. The route hands on
 * whatever the link held (a part too long or missing is `undefined`), so every fault of a
 * link, malformed or forged, is this one answer.
 */
export async function openAttachment(
  { uploads, now, sign }: AttachmentDeps,
  uploadId: string | undefined,
  expires: string | undefined,
  sig: string | undefined,
): Promise<{ upload: Upload; bytes: Buffer }> {
  if (uploadId === undefined || !isId('upload', uploadId)) throw dead();
  if (expires === undefined || sig === undefined || !EXPIRES.test(expires)) throw dead();
  // Compared as the text sent, so only the one spelling the daemon made is taken.
  const given = Buffer.from(sig);
  const wanted = Buffer.from(sign(uploadId, expires).toString('base64url'));
  if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) throw dead();
  if (Number(expires) * 1000 <= now()) throw dead();
  const found = await uploads.read(uploadId);
  if (found === null) throw dead();
  return found;
}
