import type { DaemonContext } from '../context.ts';
import { mount, type Routes } from './route.ts';

/** Liveness (`/healthz`) and the TCP listener's health check (`/v1/health`); both public. */
export function registerHealth(app: Routes, ctx: DaemonContext): void {
  mount(app, 'healthz.get', (c) => c.json({ ok: true }));
  mount(app, 'health.get', (c) => c.json({ ok: true, version: ctx.version }));
}
