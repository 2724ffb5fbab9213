import type { Hono } from 'hono';
import type { DaemonContext } from '../context.ts';
import type { AppEnv } from './env.ts';
import { mount } from './route.ts';

export function registerLlm(app: Hono<AppEnv>, ctx: DaemonContext): void {
  mount(app, 'llm.create', async (c, { body }) => {
    // The call stops when the caller goes away, or when a shutdown stops waiting for it.
    const signal = AbortSignal.any([c.req.raw.signal, ctx.hardStop]);
    return c.json(await ctx.llm.create(body, c.get('principal')!, signal));
  });
}
