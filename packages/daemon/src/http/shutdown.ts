import type { Hono } from 'hono';
import type { DaemonContext } from '../context.ts';
import type { AppEnv } from './env.ts';
import { mount } from './route.ts';

/** `POST /v1/shutdown`: answers first; the drain then waits for this and every other request. */
export function registerShutdown(app: Hono<AppEnv>, ctx: DaemonContext): void {
  mount(app, 'shutdown.create', (c) => {
    ctx.requestShutdown();
    return c.json({ ok: true });
  });
}
