import type { DaemonContext } from '../context.ts';
import { mount, type Routes } from './route.ts';

export function registerReadiness(app: Routes, ctx: DaemonContext): void {
  mount(app, 'readiness.get', (c) => c.json(ctx.models.readiness()));
}
