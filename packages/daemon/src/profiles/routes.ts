import { mount, type Routes } from '../http/route.ts';
import type { ProfileService } from './service.ts';

const DEFAULT_LIMIT = 50;

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
  mount(app, 'profiles.list', (c, { query }) => {
    const { data, hasMore } = deps.profiles.list(
      query.after ?? '',
      query.limit ?? DEFAULT_LIMIT,
      c.principal!,
    );
    return c.json({
      data,
      has_more: hasMore,
      next_cursor: hasMore ? (data.at(-1)?.name ?? null) : null,
    });
  });
  // The value goes in and never comes back: the answer is the profile, env names only.
  mount(app, 'profiles.env.set', (c, { params, body }) =>
    c.json(deps.profiles.setEnv(params.name, params.var, body.value)),
  );
  mount(app, 'profiles.env.delete', (c, { params }) =>
    c.json(deps.profiles.deleteEnv(params.name, params.var)),
  );
}
