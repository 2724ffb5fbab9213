import type { Hono } from 'hono';
import type { DaemonContext } from '../context.ts';
import { connect } from '../services/connect.ts';
import type { AppEnv } from './env.ts';
import { mount } from './route.ts';

export function registerConnect(app: Hono<AppEnv>, ctx: DaemonContext): void {
  mount(app, 'connect.create', async (c, { body }) => c.json(await connect(ctx, body)));
}
