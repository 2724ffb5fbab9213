import type { DaemonContext } from '../context.ts';
import { connect } from '../services/connect.ts';
import { mount, type Routes } from './route.ts';

export function registerConnect(app: Routes, ctx: DaemonContext): void {
  mount(app, 'connect.create', async (c, { body }) => c.json(await connect(ctx, body)));
}
