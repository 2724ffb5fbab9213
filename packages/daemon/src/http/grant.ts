import { mount, type Routes } from './route.ts';

/** `GET /v1/grant`: what the calling token may do. */
export function registerGrant(app: Routes): void {
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
