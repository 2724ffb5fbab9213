import type { DaemonContext } from '../context.ts';
import { mount, type Routes } from './route.ts';

/** `POST /v1/shutdown`: answers first; the drain then waits for this and every other request. */
export function registerShutdown(app: Routes, ctx: DaemonContext): void {
  mount(app, 'shutdown.create', (c) => {
    ctx.requestShutdown();
    return c.json({ ok: true });
  });
}
