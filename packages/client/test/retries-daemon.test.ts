/**
 * The client's retries against a real daemon: a retried POST gets the first answer through its
 * `Idempotency-Key`, a final 409 is not retried, and a quiet stream outlives a short timeout.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DaemonHandle, startDaemon } from '@svc/daemon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConflictError, createLocalClient, Svc } from '../src/node.ts';

let home: string;
let daemon: DaemonHandle;
let client: Svc;
let owner: { base_url: string; token: string };
const requests: string[] = [];

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'svc-cr-'));
  daemon = await startDaemon({ home, logLevel: 'warn', sseKeepaliveMs: 1_000 });
  client = createLocalClient({ home });
  await daemon.enableTcp();
  owner = await client.request('POST', '/v1/connect', {});
});
afterAll(async () => {
  await daemon.close();
  rmSync(home, { recursive: true, force: true });
});

/** An owner client over TCP that records each attempt's method and path. */
function counted(options: { timeout?: number; maxRetries?: number } = {}): Svc {
  return new Svc({
    baseUrl: owner.base_url,
    token: owner.token,
    ...options,
    fetch: ((input: RequestInfo | URL, init?: RequestInit) => {
      requests.push(`${init?.method ?? 'GET'} ${new URL(String(input)).pathname}`);
      return fetch(input, init);
    }) as typeof fetch,
  });
}

describe('retries against the daemon', () => {
  it('a POST whose first attempt timed out gets the first answer on retry; it runs once', async () => {
    // The retry (after 1.5 s and a backoff of 375-500 ms) comes while the command still runs,
    // and waits for it: before, the daemon answered that retry 409 and the client threw. Its own
    // 1.5 s leave about 0.9 s past the command's end for a loaded machine (600 ms left 0.3 s, and
    // a CI run ran past it); a retry that comes late gets the stored answer, the same assertion.
    const command = 'echo x >> ran.txt; sleep 2.5; echo ok';
    requests.length = 0;
    const client = counted({ maxRetries: 1 });
    // Named per call: bash.run otherwise waits past the command's own bound.
    const result = await client.bash.run({ command, cwd: home }, { timeout: 1_500 });
    expect(result).toMatchObject({ exit_code: 0, stdout: 'ok\n' });
    expect(requests).toEqual(['POST /v1/bash', 'POST /v1/bash']);
    expect(readFileSync(join(home, 'ran.txt'), 'utf8')).toBe('x\n');
  });

  it('a 409 is final: thrown after one attempt', async () => {
    const node = await client.nodes.create({
      task: 'queued',
      model: { provider: 'scripted', model: 'replay', script: [{ text: 'done' }] },
    });
    await client.nodes.cancel(node.id);
    requests.length = 0;
    const error = await counted()
      .nodes.message(node.id, { text: 'too late' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConflictError);
    expect(requests).toHaveLength(1);
  });

  it('a stream stays open through silences longer than the timeout, up to two keepalives', async () => {
    // Timeout 400 ms, keepalive every 1 s: before, the client counted each silence past
    // 400 ms as a dead connection, and with maxRetries 0 the quiet stream failed. (The timeout
    // still covers the stream's first answer, which a loaded CI machine took over 150 ms to give.)
    const quick = counted({ timeout: 400, maxRetries: 0 });
    requests.length = 0;
    let live: unknown;
    const reading = (async () => {
      for await (const event of quick.events.stream({ kinds: ['token.created'] })) {
        if (event.payload.app_id !== 'quiet') continue; // the backlog's, if any
        live = event;
        break;
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 2_500)); // quiet: keepalives only
    await client.request('POST', '/v1/connect', { app_id: 'quiet', scopes: ['svc:llm'] });
    await reading;
    expect(live).toMatchObject({ kind: 'token.created', payload: { app_id: 'quiet' } });
    expect(requests).toEqual(['GET /v1/events']);
  });
});
