import type { DaemonContext } from '../context.ts';
import { runBash } from '../services/bash.ts';
import { mount, type Routes } from './route.ts';

export function registerBash(app: Routes, ctx: DaemonContext): void {
  mount(app, 'bash.run', async (c, { body }) => c.json(await runBash(body, ctx.hardStop)));
}
