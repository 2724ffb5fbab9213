import type { DaemonContext } from '../context.ts';
import { mount, type Routes } from './route.ts';

export function registerLlm(app: Routes, ctx: DaemonContext): void {
  mount(app, 'llm.create', async (c, { body }) => {
    // The call stops when the caller goes away, or when a shutdown stops waiting for it.
    const signal = AbortSignal.any([c.signal, ctx.hardStop]);
    return c.json(await ctx.llm.create(body, c.principal!, signal));
  });
}
