import type { Hono } from 'hono';
import type { DaemonContext } from '../context.ts';
import type { AppEnv } from './env.ts';
import { mount } from './route.ts';

/** Liveness (`/healthz`) and the TCP listener's health check (`/v1/health`); both public. */
export function registerHealth(app: Hono<AppEnv>, ctx: DaemonContext): void {
  mount(app, 'healthz.get', (c) => c.json({ ok: true }));
  mount(app, 'health.get', (c) => c.json({ ok: true, version: ctx.version }));
}
