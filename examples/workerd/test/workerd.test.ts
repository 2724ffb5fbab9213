import { build } from 'esbuild';
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { itServesAcme } from '../../test-support/acme-checks.ts';

const TOKEN = 'workerd-example-token';

describe('acme plugin as a module worker on workerd', () => {
  let mf: Miniflare;
  let url = '';
  beforeAll(async () => {
    // Bundle as wrangler would, then serve it from workerd on a real 127.0.0.1 port.
    const bundle = await build({
      entryPoints: [`${import.meta.dirname}/../worker.ts`],
      bundle: true,
      format: 'esm',
      platform: 'neutral',
      mainFields: ['module', 'main'],
      write: false,
    });
    mf = new Miniflare({
      modules: true,
      script: bundle.outputFiles[0]!.text,
      compatibilityDate: '2026-04-01',
      bindings: { ACME_TOKEN: TOKEN },
      host: '127.0.0.1',
      port: 0,
    });
    url = (await mf.ready).origin;
  });
  afterAll(() => mf?.dispose());

  itServesAcme(() => `${url}/plugins`, TOKEN);

  it('keeps the archive uncompressed even for a client accepting gzip', async () => {
    const response = await fetch(`${url}/plugins/acme`, {
      headers: { authorization: `Bearer ${TOKEN}`, 'accept-encoding': 'gzip' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-encoding')).toBeNull();
  });
});
