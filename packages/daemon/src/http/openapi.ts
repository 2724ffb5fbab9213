import { buildOpenApiDocument } from '@svc/protocol';
import type { DaemonContext } from '../context.ts';
import { mount, type Routes } from './route.ts';

/** `GET /v1/openapi.json`: generated once from the protocol's route table. */
export function registerOpenApi(app: Routes, ctx: DaemonContext): void {
  let document: string | undefined;
  mount(app, 'openapi.get', (c) => {
    document ??= JSON.stringify(buildOpenApiDocument({ version: ctx.version }));
    return c.body(document, 200, { 'Content-Type': 'application/json' });
  });
}
