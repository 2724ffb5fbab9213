import type { DaemonContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import { mount, type Routes } from './route.ts';

const DEFAULT_LIMIT = 50;

export function registerTokens(app: Routes, ctx: DaemonContext): void {
  mount(app, 'tokens.list', (c, { query }) => {
    const { data, hasMore } = ctx.tokens.list(query.after ?? '', query.limit ?? DEFAULT_LIMIT);
    return c.json({
      data,
      has_more: hasMore,
      next_cursor: hasMore ? (data.at(-1)?.id ?? null) : null,
    });
  });
  mount(app, 'tokens.revoke', (c, { params }) => {
    const dto = ctx.tokens.revoke(params.id);
    if (dto === undefined)
      throw new ApiError('not_found', `no token ${params.id}`, { field: 'id' });
    return c.json(dto);
  });
}
