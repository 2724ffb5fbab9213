import type { DaemonContext } from '../context.ts';
import { statusJsonWriter } from '../services/status.ts';
import { mount, type Routes } from './route.ts';

export function registerStatus(app: Routes, ctx: DaemonContext): void {
  const statusJson = statusJsonWriter(ctx);
  mount(app, 'status.get', (c) =>
    c.body(statusJson(), 200, { 'Content-Type': 'application/json' }),
  );
}
