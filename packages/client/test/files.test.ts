/** `client.files` against a real daemon: the routes, the wire's snake_case, the error classes. */
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DaemonHandle, startDaemon } from '@svc/daemon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createLocalClient,
  NotFoundError,
  PayloadTooLargeError,
  PermissionDeniedError,
  Svc,
  UnprocessableEntityError,
} from '../src/node.ts';

let home: string;
let work: string;
let daemon: DaemonHandle;
let client: Svc;

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'svc-cf-'));
  work = realpathSync(mkdtempSync(join(tmpdir(), 'svc-cf-work-')));
  daemon = await startDaemon({ home, logLevel: 'warn' });
  client = createLocalClient({ home, maxRetries: 0 });
});
afterAll(async () => {
  await daemon.close();
  rmSync(home, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
});

describe('client.files', () => {
  it('writes 1 MiB of any text, though its JSON escaping would pass the request limit', async () => {
    // Each `"` is two bytes in JSON and each control character six: sent as is, the body would
    // be 2 or 6 MiB, over the daemon's 2 MiB; the client sends such text as base64.
    for (const [name, text] of [
      ['quotes', '"'.repeat(1024 * 1024)],
      ['controls', '\x01'.repeat(1024 * 1024)],
    ] as const) {
      const path = join(work, `${name}.txt`);
      await expect(client.files.write({ path, content: text })).resolves.toEqual({
        path,
        size: 1024 * 1024,
      });
      expect(readFileSync(path, 'utf8')).toBe(text);
    }
    // One byte more is still the daemon's 413.
    await expect(
      client.files.write({ path: join(work, 'over.txt'), content: '"'.repeat(1024 * 1024 + 1) }),
    ).rejects.toBeInstanceOf(PayloadTooLargeError);
  });

  it('write, read and list', async () => {
    const path = join(work, 'sub', 'a.txt');
    await expect(
      client.files.write({ path, content: 'héllo', create_parents: true }),
    ).resolves.toEqual({ path, size: 6 });
    expect(readFileSync(path, 'utf8')).toBe('héllo');
    await expect(client.files.read({ path, offset: 1, max_bytes: 2 })).resolves.toEqual({
      path,
      size: 6,
      offset: 1,
      content: 'é',
      encoding: 'utf8',
      truncated: true,
    });
    const listing = await client.files.list({ path: join(work, 'sub'), limit: 10 });
    expect(listing).toMatchObject({ path: join(work, 'sub'), truncated: false });
    expect(listing.entries).toEqual([
      { name: 'a.txt', type: 'file', size: 6, modified_at: expect.any(String) },
    ]);
  });

  it('sends base64 and reads bytes back as base64', async () => {
    const path = join(work, 'b.bin');
    const bytes = Buffer.from([0, 255, 1, 254, 0xc3]);
    await client.files.write({ path, content: bytes.toString('base64'), encoding: 'base64' });
    const slice = await client.files.read({ path });
    expect(slice.encoding).toBe('base64');
    expect(Buffer.from(slice.content, 'base64').equals(bytes)).toBe(true);
  });

  it('maps refusals to their error classes; a path is not checked locally', async () => {
    writeFileSync(join(work, 'kept.txt'), 'kept');
    // Each call is made when its turn comes: made at once, a later refusal could arrive before
    // the loop awaits it, an unhandled rejection in the meantime.
    const cases = [
      [
        () => client.files.read({ path: 'relative.txt' }),
        UnprocessableEntityError,
        'validation_failed',
      ],
      [() => client.files.read({ path: join(work, 'nope') }), NotFoundError, 'not_found'],
      [
        () =>
          client.files.write({
            path: join(work, 'kept.txt'),
            content: 'x'.repeat(1024 * 1024 + 1),
          }),
        PayloadTooLargeError,
        'payload_too_large',
      ],
    ] as const;
    for (const [call, kind, code] of cases) {
      const err = await call().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(kind);
      expect(err).toMatchObject({ code });
    }
    expect(readFileSync(join(work, 'kept.txt'), 'utf8')).toBe('kept');
  });

  it('an app token without a files scope gets PermissionDeniedError naming the scope', async () => {
    await daemon.enableTcp();
    const app = await client.request<{ base_url: string; token: string }>('POST', '/v1/connect', {
      app_id: 'files-app',
      scopes: ['svc:llm', 'svc:act'],
    });
    const remote = new Svc({ baseUrl: app.base_url, token: app.token, maxRetries: 0 });
    const err = await remote.files.list({ path: work }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PermissionDeniedError);
    expect(err).toMatchObject({
      status: 403,
      code: 'scope_missing',
      field: `svc:files:read:user:${work}`,
      received: ['svc:llm', 'svc:act'],
    });
  });
});
