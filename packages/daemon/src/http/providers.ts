import type { DaemonContext } from '../context.ts';
import { finalHeaders } from './errors.ts';
import { mount, type Routes } from './route.ts';

/** `providers` (docs/api-v1.md, "Providers"): installed plugins' commands for apps and the owner. */
export function registerProviders(app: Routes, ctx: DaemonContext): void {
  mount(app, 'providers.tools', (c, { query }) =>
    c.json({ data: ctx.providers.tools(c.principal!, query.provider) }),
  );
  mount(app, 'providers.call', async (c, { body }) => {
    const answer = await ctx.providers.call(c.principal!, body, c.requestId, c.signal);
    if (answer.ok) return c.json(answer.result);
    // The plugin's own envelope and status, tied to this request as every answer is.
    const { status, error } = answer.refusal;
    return c.json({ error: { ...error, request_id: c.requestId } }, status, finalHeaders(status));
  });
}
