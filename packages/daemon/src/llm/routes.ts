import { mount, type Routes } from '../http/route.ts';
import type { LlmService } from './service.ts';

export interface LlmRouteDeps {
  llm: LlmService;
  /** Aborted when a shutdown stops waiting for requests in flight. */
  hardStop: AbortSignal;
}

export function registerLlmRoutes(app: Routes, deps: LlmRouteDeps): void {
  mount(app, 'llm.create', async (c, { body }) => {
    // The call stops when the caller goes away, or when a shutdown stops waiting for it.
    const signal = AbortSignal.any([c.signal, deps.hardStop]);
    return c.json(await deps.llm.create(body, c.principal!, signal));
  });
}
