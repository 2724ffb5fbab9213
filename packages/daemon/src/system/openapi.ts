import { buildOpenApiDocument } from '@svc/protocol';
import { mount, type Routes } from '../http/route.ts';

/** `GET /v1/openapi.json`: generated once from the protocol's route table. */
export function registerOpenApi(app: Routes, deps: { version: string }): void {
  let document: string | undefined;
  mount(app, 'openapi.get', (c) => {
    document ??= JSON.stringify(buildOpenApiDocument({ version: deps.version }));
    return c.body(document, 200, { 'Content-Type': 'application/json' });
  });
}
