// Next.js App Router: every GET and POST at /api/plugins and under it reaches the kit (an
// optional catch-all, `[[...path]]`, so the mount itself serves the archive the installer
// fetches), which finds the mount from the request URL and the command from the path suffix.
import { createFetchHandler } from '@svc/plugin-kit';
import { plugin } from '../../../../plugin.ts';

// Without ACME_TOKEN the kit serves unauthenticated and logs a warning once.
const acme = createFetchHandler(plugin, { token: process.env.ACME_TOKEN });

export const GET = acme;
export const POST = acme;
