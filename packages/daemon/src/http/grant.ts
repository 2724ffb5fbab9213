import type { Hono } from 'hono';
import type { AppEnv } from './env.ts';
import { mount } from './route.ts';

/** `GET /v1/grant`: what the calling token may do. */
export function registerGrant(app: Hono<AppEnv>): void {
  mount(app, 'grant.get', (c) => {
    const p = c.get('principal')!;
    return c.json({
      kind: p.kind,
      app_id: p.appId,
      scopes: p.scopes,
      token_id: p.tokenId,
      expires_at: p.expiresAt,
    });
  });
}
