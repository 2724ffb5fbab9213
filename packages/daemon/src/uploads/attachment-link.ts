import { ATTACHMENT_TTL_DEFAULT_S } from '@svc/protocol';
import type { Sight } from '../access/visibility.ts';
import { ApiError } from '../errors.ts';
import type { Principal } from '../ports.ts';
import type { AttachmentDeps } from './attachment-deps.ts';

/** `attachments.link`: a URL serving the upload for `ttlS` seconds. */
export function attachmentLink(
  { uploads, tcp, now, sign }: AttachmentDeps,
  uploadId: string,
  ttlS: number | undefined,
  principal: Principal,
  sight: Sight,
) {
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
}
