import type { Hono } from 'hono';
import type { DaemonContext } from '../context.ts';
import { daemonStatus } from '../services/status.ts';
import type { AppEnv } from './env.ts';
import { mount } from './route.ts';

export function registerStatus(app: Hono<AppEnv>, ctx: DaemonContext): void {
  mount(app, 'status.get', (c) => c.json(daemonStatus(ctx)));
}
