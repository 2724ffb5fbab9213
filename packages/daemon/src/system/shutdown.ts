import { mount, type Routes } from '../http/route.ts';

/** `POST /v1/shutdown`: answers first; the drain then waits for this and every other request. */
export function registerShutdown(app: Routes, deps: { requestShutdown(): void }): void {
  mount(app, 'shutdown.create', (c) => {
    deps.requestShutdown();
    return c.json({ ok: true });
  });
}
