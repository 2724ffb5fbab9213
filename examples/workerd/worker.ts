import { createFetchHandler } from '@svc/plugin-kit';
import { plugin } from './plugin.ts';

interface Env {
  ACME_TOKEN: string; // a secret: `wrangler secret put ACME_TOKEN`
}

// One handler per isolate, so its archive cache outlives a single request.
let acme: ((request: Request) => Promise<Response>) | undefined;

export default {
  fetch(request: Request, env: Env): Promise<Response> {
    acme ??= createFetchHandler(plugin, { token: env.ACME_TOKEN });
    return acme(request);
  },
};
