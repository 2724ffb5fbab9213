import type { Hono } from 'hono';
import type { DaemonContext } from '../context.ts';
import type { AppEnv } from './env.ts';
import { mount } from './route.ts';

export function registerModelConfig(app: Hono<AppEnv>, ctx: DaemonContext): void {
  mount(app, 'models.config.retrieve', (c) => c.json(ctx.models.config()));
  mount(app, 'models.config.update', (c, { body }) => c.json(ctx.models.updateConfig(body)));
}
