import { afterAll, beforeAll, describe } from 'vitest';
import { itServesAcme } from '../../test-support/acme-checks.ts';
import { type Spawned, spawnServer } from '../../test-support/spawn-server.ts';

const TOKEN = 'deno-example-token';
const deno = `${import.meta.dirname}/../../../node_modules/.bin/deno`;

describe('acme plugin on Deno.serve', () => {
  let server: Spawned;
  beforeAll(async () => {
    server = await spawnServer(
      deno,
      ['run', '--no-prompt', '--allow-net=127.0.0.1', '--allow-env=ACME_TOKEN,PORT', 'main.ts'],
      { cwd: `${import.meta.dirname}/..`, env: { ACME_TOKEN: TOKEN } },
    );
  });
  afterAll(() => server?.stop());

  itServesAcme(() => `${server.url}/plugins`, TOKEN);
});
