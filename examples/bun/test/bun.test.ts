import { afterAll, beforeAll, describe } from 'vitest';
import { itServesAcme } from '../../test-support/acme-checks.ts';
import { type Spawned, spawnServer } from '../../test-support/spawn-server.ts';

const TOKEN = 'bun-example-token';
const bun = `${import.meta.dirname}/../../../node_modules/.bin/bun`;

describe('acme plugin on Bun.serve', () => {
  let server: Spawned;
  beforeAll(async () => {
    server = await spawnServer(bun, ['server.ts'], {
      cwd: `${import.meta.dirname}/..`,
      env: { ACME_TOKEN: TOKEN },
    });
  });
  afterAll(() => server?.stop());

  itServesAcme(() => `${server.url}/plugins`, TOKEN);
});
