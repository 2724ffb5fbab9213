/**
 * Attachment links (docs/api-v1.md "Uploads and attachments"): a capability URL on the TCP
 * listener that serves one upload's bytes without a bearer until it expires. The URL carries the
 * expiry and an HMAC-SHA256 over the upload id and that expiry, under a key the daemon keeps in
 * its database (never a token, which it would leak into every link). A link cannot be revoked
 * alone; deleting the upload ends all of its links.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ATTACHMENT_TTL_DEFAULT_S, isId } from '@svc/protocol';
import type { Sight } from '../access/visibility.ts';
import { ApiError } from '../errors.ts';
import type { Principal, TcpInfo } from '../ports.ts';
import type { Store } from '../store/index.ts';
import type { UploadService } from './service.ts';
import type { Upload } from './store.ts';

const KEY_NAME = 'attachment_link_hmac';
const EXPIRES = /^\d{1,12}$/;

export interface AttachmentServiceDeps {
  store: Store;
  uploads: Pick<UploadService, 'get' | 'read'>;
  tcp(): TcpInfo | null;
  /** The clock links are made and checked by; for tests. */
  now?: () => number;
}

export function attachmentService({ store, uploads, tcp, now = Date.now }: AttachmentServiceDeps) {
  let key: Buffer | undefined;

  function sign(uploadId: string, expires: string): Buffer {
    key ??= store.secrets.ensure(KEY_NAME);
    return createHmac('sha256', key).update(`attachment:${uploadId}:${expires}`).digest();
  }

  /** One answer for every dead link, so a caller never learns which check failed. */
  function dead(): ApiError {
    return new ApiError('not_found', 'this attachment link is invalid or has expired');
  }

  return {
    /** `attachments.link`: a URL serving the upload for `ttlS` seconds. */
    link(uploadId: string, ttlS: number | undefined, principal: Principal, sight: Sight) {
      uploads.get(uploadId, principal, sight);
      const listener = tcp();
      if (listener === null) {
        throw new ApiError(
          'invalid_state',
          'the TCP listener is off: attachment links are served there; turn it on with `svc sys connect` (POST /v1/connect) first',
        );
      }
      const expiresS = Math.floor(now() / 1000) + (ttlS ?? ATTACHMENT_TTL_DEFAULT_S);
      const expires = String(expiresS);
      const sig = sign(uploadId, expires).toString('base64url');
      const query = new URLSearchParams({ expires, sig });
      return {
        url: `${listener.base_url}/v1/attachments/${uploadId}/content?${query}`,
        expires_at: new Date(expiresS * 1000).toISOString(),
      };
    },

    /**
     * The upload a link names, once its signature and expiry hold; else 404. The route hands on
     * whatever the link held (a part too long or missing is `undefined`), so every fault of a
     * link, malformed or forged, is this one answer.
     */
    async open(
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
    },
  };
}

export type AttachmentService = ReturnType<typeof attachmentService>;
