import type { DaemonContext } from '../context.ts';
import { daemonStatus } from '../services/status.ts';
import { mount, type Routes } from './route.ts';

export function registerStatus(app: Routes, ctx: DaemonContext): void {
  mount(app, 'status.get', (c) => c.json(daemonStatus(ctx)));
}
