import { mount, type Routes } from '../http/route.ts';

/** Liveness (`/healthz`) and the TCP listener's health check (`/v1/health`); both public. */
export function registerHealth(app: Routes, deps: { version: string }): void {
  mount(app, 'healthz.get', (c) => c.json({ ok: true }));
  mount(app, 'health.get', (c) => c.json({ ok: true, version: deps.version }));
}
