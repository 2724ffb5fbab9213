/**
 * The web viewer's `/v1` routes (docs/api-v1.md "Viewer"). The viewer's pages themselves
 * (`/viewer/…`) are no API route: the daemon serves them on its TCP listener only.
 */
import { viewerLinkSchema, viewerLogoutSchema } from '../schemas/viewer.ts';
import type { RouteDef } from './route-def.ts';

const OWNER = { kind: 'owner' } as const;

export const viewerRoutes = [
  {
    id: 'viewer.links.create',
    method: 'POST',
    path: '/v1/viewer/links',
    auth: OWNER,
    summary:
      'A one-time login link for the web viewer, valid 60 s; 409 while the TCP listener is off',
    response: viewerLinkSchema,
    errors: ['invalid_state'],
  },
  {
    id: 'viewer.logout',
    method: 'POST',
    path: '/v1/viewer/logout',
    auth: OWNER,
    summary: "End the viewer session of the request's cookie and clear the cookie",
    response: viewerLogoutSchema,
  },
] as const satisfies readonly RouteDef[];
