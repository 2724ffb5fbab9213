import { mount, type Routes } from '../http/route.ts';
import type { ShareService } from './service.ts';

export interface ShareRouteDeps {
  shares: Pick<ShareService, 'create' | 'list' | 'delete'>;
}

/** The `shares` routes (docs/api-v1.md "Shares"). */
export function registerShareRoutes(app: Routes, { shares }: ShareRouteDeps): void {
  mount(app, 'shares.create', (c, { body }) => c.json(shares.create(body, c.principal!)));
  mount(app, 'shares.list', (c, { query }) =>
    c.page((limit, after) =>
      shares.list(c.principal!, c.sight(), { appId: query.app_id, before: after, limit }),
    ),
  );
  mount(app, 'shares.delete', (c, { params }) =>
    c.json(shares.delete(params.id, c.principal!, c.sight())),
  );
}
