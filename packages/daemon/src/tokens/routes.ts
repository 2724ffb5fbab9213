/** The routes of tokens: the list, a revocation, and `grant.get` (what the calling token may do). */
import { ApiError } from '../errors.ts';
import { mount, type Routes } from '../http/route.ts';
import type { TokenService } from './service.ts';

export interface TokenRouteDeps {
  tokens: Pick<TokenService, 'list' | 'revoke'>;
}

export function registerTokenRoutes(app: Routes, { tokens }: TokenRouteDeps): void {
  mount(app, 'tokens.list', (c) => c.page((limit, after) => tokens.list(after ?? '', limit)));
  mount(app, 'tokens.revoke', (c, { params }) => {
    const dto = tokens.revoke(params.id);
    if (dto === undefined)
      throw new ApiError('not_found', `no token ${params.id}`, { field: 'id' });
    return c.json(dto);
  });
  mount(app, 'grant.get', (c) => {
    const p = c.principal!;
    return c.json({
      kind: p.kind,
      app_id: p.appId,
      scopes: p.scopes,
      token_id: p.tokenId,
      expires_at: p.expiresAt,
    });
  });
}
