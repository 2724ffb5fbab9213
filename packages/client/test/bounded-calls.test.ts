/**
 * Calls whose route runs for a known bound (`bash.run`, `providers.call`) wait past that bound
 * whatever the client's default timeout: a slow answer is the answer, not a dead daemon to retry.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APIConnectionTimeoutError, Svc } from '../src/index.ts';
import { json, ScriptedServer } from './helpers/server.ts';

const server = new ScriptedServer();
let hasty: Svc;

beforeAll(async () => {
  // A client whose own timeout is shorter than the answers below take.
  hasty = new Svc({ baseUrl: await server.listen(), token: 'svc_owner_test', timeout: 300 });
});
afterAll(() => server.close());

const answerAfter = (ms: number, body: unknown) =>
  server.reset((_req, res) => {
    setTimeout(() => json(res, 200, body), ms);
  });

describe('bounded calls', () => {
  it('a plain request times out at the client timeout', async () => {
    answerAfter(800, { ok: true });
    await expect(hasty.request('POST', '/v1/x', {}, { maxRetries: 0 })).rejects.toBeInstanceOf(
      APIConnectionTimeoutError,
    );
  });

  it('providers.call and bash.run wait for their answer, once', async () => {
    answerAfter(800, { ok: true });
    await expect(
      hasty.providers.call({ provider: 'acme', group: 'g', command: 'c', input: {} }),
    ).resolves.toEqual({ ok: true });
    await expect(hasty.bash.run({ command: 'sleep 1', cwd: '/' })).resolves.toEqual({ ok: true });
    expect(server.requests).toHaveLength(2);
  });

  it('a timeout the caller names still wins', async () => {
    answerAfter(800, { ok: true });
    await expect(
      hasty.bash.run({ command: 'sleep 1', cwd: '/' }, { timeout: 200, maxRetries: 0 }),
    ).rejects.toBeInstanceOf(APIConnectionTimeoutError);
  });
});
