import type { Hono } from 'hono';
import type { DaemonContext } from '../context.ts';
import type { AppEnv } from './env.ts';
import { mount } from './route.ts';

export function registerReadiness(app: Hono<AppEnv>, ctx: DaemonContext): void {
  mount(app, 'readiness.get', (c) => c.json(ctx.models.readiness()));
}
