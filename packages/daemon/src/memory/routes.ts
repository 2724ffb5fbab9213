import { mount, type Routes } from '../http/route.ts';
import type { MemoryService } from './service.ts';

export interface MemoryRouteDeps {
  memory: MemoryService;
}

/** Every route of protocol's `memoryRoutes` (docs/api-v1.md "Memory"). */
export function registerMemoryRoutes(app: Routes, deps: MemoryRouteDeps): void {
  const { memory } = deps;
  mount(app, 'memory.list', (c, { query }) =>
    c.page((limit, after) => memory.list(c.principal!, { ...query, after, limit })),
  );
  mount(app, 'memory.get', (c, { query }) => c.json(memory.get(c.principal!, query)));
  mount(app, 'memory.write', (c, { body }) => c.json(memory.write(c.principal!, body)));
  mount(app, 'memory.delete', (c, { query }) => c.json(memory.delete(c.principal!, query)));
}
