/// <reference types="node" />
// Node only: the benchmark's rows compare like with like. Every variant of a row answers its
// request with the kit's status and body, and the bare, minimal and reads handlers with the
// kit's headers too (bench/scenarios.ts promises "the same bytes"); a variant that answered less, or
// an error, would measure faster for the wrong reason.
import { describe, expect, it } from 'vitest';
import { createDirectory } from '../../bench/directory.ts';
import { allVariantsOf, createRows, type Row, variantsOf } from '../../bench/scenarios.ts';

const directory = createDirectory('https://directory.bench', 'http://127.0.0.1/plugins');
const rows = await createRows('bench-shared-token', directory);
const [token = ''] = directory.mintPool(1, 'acme:tickets');

async function send(row: Row, handler: Row['handlers']['kit']) {
  const url = `http://127.0.0.1${row.path}`;
  const headers = new Headers(row.headers);
  // As the load generator sends it: with its length, which the kit's and minimal's limit read.
  if (row.body !== undefined) headers.set('content-length', String(Buffer.byteLength(row.body)));
  if (row.tokens) headers.set('authorization', `Bearer ${token}`);
  if (row.conditional) {
    headers.set('if-none-match', (await handler(new Request(url))).headers.get('etag') ?? '');
  }
  const response = await handler(
    new Request(url, {
      method: row.method,
      headers,
      ...(row.body === undefined ? {} : { body: row.body }),
    }),
  );
  const { status } = response;
  const body = new Uint8Array(await response.arrayBuffer());
  const named = [...response.headers].filter(([name]) => name !== 'svc-request-id');
  return { status, body, headers: named, requestId: response.headers.get('svc-request-id') };
}

describe('benchmark rows', () => {
  it('has the rows the issue names, the command ones with a minimal variant', () => {
    expect(rows.map((row) => row.name)).toEqual([
      'command no-auth',
      'command token',
      'command directory (ES256)',
      'archive 200',
      'archive 304',
    ]);
    expect(rows.map((row) => variantsOf(row).includes('minimal'))).toEqual([
      true,
      true,
      false,
      false,
      false,
    ]);
    expect(rows.map((row) => allVariantsOf(row).at(-1))).toEqual([
      'reads',
      'reads',
      'hono',
      'hono',
      'hono',
    ]);
  });

  for (const row of rows) {
    it(`${row.name}: every variant answers the kit's status and body`, async () => {
      const kit = await send(row, row.handlers.kit);
      expect(kit.status).toBe(row.status);
      for (const variant of allVariantsOf(row)) {
        const handler = row.handlers[variant]!;
        const answer = await send(row, handler);
        expect({ variant, status: answer.status }).toEqual({ variant, status: kit.status });
        expect(Buffer.from(answer.body).toString('latin1')).toBe(
          Buffer.from(kit.body).toString('latin1'),
        );
        if (variant === 'hono') continue; // the same endpoint, not the same bytes
        expect(answer.headers).toEqual(kit.headers);
        expect(answer.requestId?.length).toBe(kit.requestId?.length);
      }
    });
  }

  it("minimal answers bad commands as the kit does, so its figure is no shortcut's", async () => {
    for (const name of ['command no-auth', 'command token']) {
      const row = rows.find((r) => r.name === name)!;
      const call = (
        handler: Row['handlers']['kit'],
        headers: Record<string, string>,
        body: string | Uint8Array<ArrayBuffer>,
      ) =>
        handler(
          new Request(`http://127.0.0.1${row.path}`, {
            method: 'POST',
            headers: {
              ...row.headers,
              'content-length': String(
                typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength,
              ),
              ...headers,
            },
            body,
          }),
        );
      const utf8 = (...parts: (string | number)[]) =>
        new Uint8Array(
          parts.flatMap((part) => (typeof part === 'string' ? [...Buffer.from(part)] : [part])),
        );
      const cases: [string, Record<string, string>, string | Uint8Array<ArrayBuffer>, number][] = [
        ['an empty title', {}, JSON.stringify({ title: '' }), 422],
        ['a title not a string', {}, JSON.stringify({ title: 7 }), 422],
        ['no body', {}, '', 422],
        ['an array', {}, '[]', 400],
        ['not JSON', {}, '{"title":', 400],
        ['a byte never in UTF-8', {}, utf8('{"title":"', 0xff, '"}'), 400],
        ['a 4-byte sequence cut short', {}, utf8('{"title":"', 0xf0, 0x9f, 0x98, '"}'), 400],
        ['too long a body', {}, JSON.stringify({ title: 'x'.repeat(1 << 20) }), 413],
        ['no token', { authorization: '' }, row.body!, 401],
        ['a wrong token', { authorization: 'Bearer bench-shared-tokem' }, row.body!, 401],
        [
          'the scheme in lower case',
          { authorization: 'bearer bench-shared-token' },
          row.body!,
          200,
        ],
        ['two spaces', { authorization: 'Bearer  bench-shared-token' }, row.body!, 200],
      ];
      for (const [what, headers, body, status] of cases) {
        if (name === 'command no-auth' && 'authorization' in headers) continue;
        const kit = await call(row.handlers.kit, headers, body);
        const minimal = await call(row.handlers.minimal!, headers, body);
        expect({ name, what, kit: kit.status, minimal: minimal.status }).toEqual({
          name,
          what,
          kit: status,
          minimal: status,
        });
      }
      // A U+FFFD the client sent is a title like any other, for both.
      const replacement = JSON.stringify({ title: '\uFFFD' });
      expect((await call(row.handlers.kit, {}, replacement)).status).toBe(200);
      expect((await call(row.handlers.minimal!, {}, replacement)).status).toBe(200);
    }
  });
});
