import { mount, type Routes } from '../http/route.ts';
import type { ProfileService } from './service.ts';

export interface ProfileRouteDeps {
  profiles: ProfileService;
}

export function registerProfileRoutes(app: Routes, deps: ProfileRouteDeps): void {
  mount(app, 'profiles.ensure', (c, { params, body }) =>
    c.json(deps.profiles.ensure(params.name, body, c.principal!)),
  );
  mount(app, 'profiles.retrieve', (c, { params }) =>
    c.json(deps.profiles.retrieve(params.name, c.principal!)),
  );
  mount(app, 'profiles.list', (c) =>
    c.page((limit, after) => deps.profiles.list(after ?? '', limit, c.principal!)),
  );
  // The value goes in and never comes back: the answer is the profile, env names only.
  mount(app, 'profiles.env.set', (c, { params, body }) =>
    c.json(deps.profiles.setEnv(params.name, params.var, body.value)),
  );
  mount(app, 'profiles.env.delete', (c, { params }) =>
    c.json(deps.profiles.deleteEnv(params.name, params.var)),
  );
}
