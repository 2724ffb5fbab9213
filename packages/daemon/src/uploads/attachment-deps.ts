import type { TcpInfo } from '../ports.ts';
import type { UploadService } from './service.ts';

/** What the link operations use: the signature of an upload id and expiry among them. */
export interface AttachmentDeps {
  uploads: Pick<UploadService, 'get' | 'read'>;
  tcp(): TcpInfo | null;
  now: () => number;
  sign(uploadId: string, expires: string): Buffer;
}
