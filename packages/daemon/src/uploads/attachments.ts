/**
 * Attachment links (docs/api-v1.md "Uploads and attachments"): a capability URL on the TCP
 * listener that serves one upload's bytes without a bearer until it expires. The URL carries the
 * expiry and an HMAC-SHA256 over the upload id and that expiry, under a key the daemon keeps in
 * its database (never a token, which it would leak into every link). A link cannot be revoked
 * alone; deleting the upload ends all of its links.
 */
import { createHmac } from 'node:crypto';
import type { Sight } from '../access/visibility.ts';
import type { Principal, TcpInfo } from '../ports.ts';
import type { Store } from '../store/index.ts';
import type { AttachmentDeps } from './attachment-deps.ts';
import { attachmentLink } from './attachment-link.ts';
import { openAttachment } from './attachment-open.ts';
import type { UploadService } from './service.ts';

const KEY_NAME = 'attachment_link_hmac';

export interface AttachmentServiceDeps {
  store: Pick<Store, 'secrets'>;
  uploads: Pick<UploadService, 'get' | 'read'>;
  tcp(): TcpInfo | null;
  /** The clock links are made and checked by; for tests. */
  now?: () => number;
}

export function attachmentService({ store, uploads, tcp, now = Date.now }: AttachmentServiceDeps) {
  let key: Buffer | undefined;
  const deps: AttachmentDeps = {
    uploads,
    tcp,
    now,
    sign(uploadId, expires) {
      key ??= store.secrets.ensure(KEY_NAME);
      return createHmac('sha256', key).update(`attachment:${uploadId}:${expires}`).digest();
    },
  };
  return {
    link: (uploadId: string, ttlS: number | undefined, principal: Principal, sight: Sight) =>
      attachmentLink(deps, uploadId, ttlS, principal, sight),
    open: (uploadId: string | undefined, expires: string | undefined, sig: string | undefined) =>
      openAttachment(deps, uploadId, expires, sig),
  };
}

export type AttachmentService = ReturnType<typeof attachmentService>;
