import { finalHeaders } from '../http/errors.ts';
import { mount, type Routes } from '../http/route.ts';
import type { ProviderService } from './service.ts';

/** `providers` (docs/api-v1.md, "Providers"): installed plugins' commands for apps and the owner. */
export interface ProviderRouteDeps {
  providers: ProviderService;
}

export function registerProviderRoutes(app: Routes, deps: ProviderRouteDeps): void {
  mount(app, 'providers.tools', (c, { query }) =>
    c.json({ data: deps.providers.tools(c.principal!, query.provider) }),
  );
  mount(app, 'providers.call', async (c, { body }) => {
    const answer = await deps.providers.call(c.principal!, body, c.requestId, c.signal);
    if (answer.ok) return c.json(answer.result);
    // The plugin's own envelope and status, tied to this request as every answer is.
    const { status, error } = answer.refusal;
    return c.json({ error: { ...error, request_id: c.requestId } }, status, finalHeaders(status));
  });
}
