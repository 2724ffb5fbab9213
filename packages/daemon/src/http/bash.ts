import type { Hono } from 'hono';
import type { DaemonContext } from '../context.ts';
import { runBash } from '../services/bash.ts';
import type { AppEnv } from './env.ts';
import { mount } from './route.ts';

export function registerBash(app: Hono<AppEnv>, ctx: DaemonContext): void {
  mount(app, 'bash.run', async (c, { body }) => c.json(await runBash(body, ctx.hardStop)));
}
