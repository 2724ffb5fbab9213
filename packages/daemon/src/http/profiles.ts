import type { DaemonContext } from '../context.ts';
import { mount, type Routes } from './route.ts';

const DEFAULT_LIMIT = 50;

export function registerProfiles(app: Routes, ctx: DaemonContext): void {
  mount(app, 'profiles.ensure', (c, { params, body }) =>
    c.json(ctx.profiles.ensure(params.name, body, c.principal!)),
  );
  mount(app, 'profiles.retrieve', (c, { params }) =>
    c.json(ctx.profiles.retrieve(params.name, c.principal!)),
  );
  mount(app, 'profiles.list', (c, { query }) => {
    const { data, hasMore } = ctx.profiles.list(
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
    c.json(ctx.profiles.setEnv(params.name, params.var, body.value)),
  );
  mount(app, 'profiles.env.delete', (c, { params }) =>
    c.json(ctx.profiles.deleteEnv(params.name, params.var)),
  );
}
