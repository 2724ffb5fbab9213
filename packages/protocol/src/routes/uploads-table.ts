/**
 * The `uploads` and `attachments` routes (docs/api-v1.md "Uploads and attachments"), part of the
 * application-facing API. Any token of the owner or an app; the owner sees every upload, an app
 * its own, and anything else answers 404. The content route is public: its signature is the
 * credential.
 */
import {
  attachmentContentParamsSchema,
  attachmentContentQuerySchema,
  attachmentContentSchema,
  attachmentLinkQuerySchema,
  attachmentLinkSchema,
  uploadCreateBodySchema,
  uploadDeleteResultSchema,
  uploadParamsSchema,
  uploadRawQuerySchema,
  uploadSchema,
} from '../schemas/uploads.ts';
import type { RouteDef } from './route-def.ts';

const TOKEN = { kind: 'token' } as const;

export const uploadsRoutes = [
  {
    id: 'uploads.create',
    method: 'POST',
    path: '/v1/uploads',
    auth: TOKEN,
    summary: 'Hand the daemon a file (base64 in JSON, at most 1 MiB decoded) for your runs',
    body: uploadCreateBodySchema,
    response: uploadSchema,
    errors: ['forbidden'],
  },
  {
    id: 'uploads.createRaw',
    method: 'POST',
    path: '/v1/uploads/raw',
    auth: TOKEN,
    summary:
      'Hand the daemon a file as the raw request body (application/octet-stream, at most 1 MiB); name and type in the query',
    query: uploadRawQuerySchema,
    consumes: 'application/octet-stream',
    response: uploadSchema,
    errors: ['forbidden', 'payload_too_large'],
  },
  {
    id: 'uploads.retrieve',
    method: 'GET',
    path: '/v1/uploads/{id}',
    auth: TOKEN,
    summary: "Get an upload's record (not its bytes: attachments.link serves those)",
    params: uploadParamsSchema,
    response: uploadSchema,
    errors: ['forbidden'],
    visibility: 'own-app',
  },
  {
    id: 'uploads.delete',
    method: 'DELETE',
    path: '/v1/uploads/{id}',
    auth: TOKEN,
    summary: 'Delete an upload and its bytes; its links stop working',
    params: uploadParamsSchema,
    response: uploadDeleteResultSchema,
    errors: ['forbidden'],
    visibility: 'own-app',
  },
  {
    id: 'attachments.link',
    method: 'GET',
    path: '/v1/attachments/link',
    auth: TOKEN,
    summary:
      'A capability URL on the TCP listener serving an upload without a bearer, for ttl_s seconds (409 while the listener is off)',
    query: attachmentLinkQuerySchema,
    response: attachmentLinkSchema,
    errors: ['forbidden', 'not_found', 'invalid_state'],
    visibility: 'own-app',
  },
  {
    id: 'attachments.content',
    method: 'GET',
    path: '/v1/attachments/{id}/content',
    auth: { kind: 'public' },
    summary:
      'The bytes of an upload, by a link of attachments.link (as a download, sandboxed); a forged, expired or dead link is 404',
    params: attachmentContentParamsSchema,
    query: attachmentContentQuerySchema,
    response: attachmentContentSchema,
    produces: 'application/octet-stream',
  },
] as const satisfies readonly RouteDef[];
