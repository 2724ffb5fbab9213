import { mount, type Routes } from '../http/route.ts';
import type { AttachmentService } from './attachments.ts';
import { contentHeaders } from './content-headers.ts';
import type { UploadService } from './service.ts';

export interface UploadRouteDeps {
  uploads: UploadService;
  attachments: AttachmentService;
}

/** The `uploads` and `attachments` routes (docs/api-v1.md "Uploads and attachments"). */
export function registerUploadRoutes(app: Routes, { uploads, attachments }: UploadRouteDeps): void {
  mount(app, 'uploads.create', async (c, { body }) =>
    c.json(await uploads.createBase64(body, c.principal!)),
  );
  mount(app, 'uploads.createRaw', async (c, { query }) =>
    c.json(await uploads.createRaw(c.input.raw, query, c.principal!)),
  );
  mount(app, 'uploads.retrieve', (c, { params }) =>
    c.json(uploads.get(params.id, c.principal!, c.sight())),
  );
  mount(app, 'uploads.delete', (c, { params }) =>
    c.json(uploads.delete(params.id, c.principal!, c.sight())),
  );

  mount(app, 'attachments.link', (c, { query }) =>
    c.json(attachments.link(query.upload_id, query.ttl_s, c.principal!, c.sight())),
  );
  mount(app, 'attachments.content', async (c, { params, query }) => {
    const { upload, bytes } = await attachments.open(params.id, query.expires, query.sig);
    return c.body(bytes, 200, contentHeaders(upload));
  });
}
