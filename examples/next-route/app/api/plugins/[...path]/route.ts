// Next.js App Router: every GET and POST under /api/plugins/ reaches the kit, which finds the
// mount (/api/plugins) from the request URL and the command from the path suffix.
import { createFetchHandler } from '@svc/plugin-kit';
import { plugin } from '../../../../plugin.ts';

const token = process.env.ACME_TOKEN;
if (!token) throw new Error('set ACME_TOKEN');

const acme = createFetchHandler(plugin, { token });

export const GET = acme;
export const POST = acme;
