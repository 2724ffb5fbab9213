import type { DaemonContext } from '../context.ts';
import { mount, type Routes } from './route.ts';

export function registerModelConfig(app: Routes, ctx: DaemonContext): void {
  mount(app, 'models.config.retrieve', (c) => c.json(ctx.models.config()));
  mount(app, 'models.config.update', (c, { body }) => c.json(ctx.models.updateConfig(body)));
}
