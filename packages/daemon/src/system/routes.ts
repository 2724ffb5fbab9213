import { buildOpenApiDocument } from '@svc/protocol';
import { mount, type Routes } from '../http/route.ts';
import { type StatusDeps, statusJsonWriter } from './status.ts';

export interface SystemRouteDeps extends StatusDeps {
  /** Starts the drain and exit; returns at once. */
  requestShutdown(): void;
}

/** The daemon's own routes: health, status, the OpenAPI document, the caller's grant, shutdown. */
export function registerSystemRoutes(app: Routes, deps: SystemRouteDeps): void {
  // Liveness (`/healthz`) and the TCP listener's health check (`/v1/health`); both public.
  mount(app, 'healthz.get', (c) => c.json({ ok: true }));
  mount(app, 'health.get', (c) => c.json({ ok: true, version: deps.version }));

  const statusJson = statusJsonWriter(deps);
  mount(app, 'status.get', (c) =>
    c.body(statusJson(), 200, { 'Content-Type': 'application/json' }),
  );

  // Generated once, on first use, from the protocol's route table.
  let document: string | undefined;
  mount(app, 'openapi.get', (c) => {
    document ??= JSON.stringify(buildOpenApiDocument({ version: deps.version }));
    return c.body(document, 200, { 'Content-Type': 'application/json' });
  });

  // What the calling token may do.
  mount(app, 'grant.get', (c) => {
    const p = c.principal!;
    return c.json({
      kind: p.kind,
      app_id: p.appId,
      scopes: p.scopes,
      token_id: p.tokenId,
      expires_at: p.expiresAt,
    });
  });

  // Answers first; the drain then waits for this and every other request.
  mount(app, 'shutdown.create', (c) => {
    deps.requestShutdown();
    return c.json({ ok: true });
  });
}
