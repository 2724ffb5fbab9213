import { describe, expect, it } from 'vitest';
import { createFetchHandler } from '../src/index.ts';
import {
  acmeDefinition,
  acmeGroup,
  errorOf,
  manifestOf,
  memoryLogger,
  ORIGIN,
  post,
} from './helpers.ts';

const handler = createFetchHandler(acmeDefinition(), {
  logger: memoryLogger(),
  maxBodyBytes: 1024,
});
const echo = async (request: Request) => {
  const response = await handler(request);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};
const raw = (body: BodyInit | null, headers: Record<string, string> = {}) =>
  new Request(`${ORIGIN}/acme/tickets/echo`, { method: 'POST', body, headers });

/** A body streamed in chunks, without Content-Length; `pulled()` counts chunks produced. */
function streamed(
  chunks: number,
  size: number,
  headers: Record<string, string> = {},
): { request: Request; pulled: () => number } {
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent === chunks) return controller.close();
      sent++;
      controller.enqueue(new TextEncoder().encode(' '.repeat(size)));
    },
  });
  return { request: streamRequest(body, headers), pulled: () => sent };
}

/** A JSON command request whose body is `body`, streamed. */
function streamRequest(body: ReadableStream<Uint8Array>, headers: Record<string, string>): Request {
  return new Request(`${ORIGIN}/acme/tickets/echo`, {
    method: 'POST',
    body,
    headers: { 'Content-Type': 'application/json', ...headers },
    duplex: 'half',
  } as RequestInit);
}

describe('request bodies', () => {
  it('parses a JSON object', async () => {
    const { status, body } = await echo(post('/acme/tickets/echo', { a: [1, 2], b: { c: null } }));
    expect(status).toBe(200);
    expect(body.input).toEqual({ a: [1, 2], b: { c: null } });
  });

  it('reads an empty or absent body as {}', async () => {
    expect((await echo(raw(null))).body.input).toEqual({});
    expect((await echo(raw('', { 'Content-Type': 'application/json' }))).body.input).toEqual({});
    expect((await echo(raw('  \n', { 'Content-Type': 'application/json' }))).body.input).toEqual(
      {},
    );
  });

  it('reads the body as JSON whatever its Content-Type, or with none', async () => {
    for (const type of [
      'application/json',
      'application/json; charset=utf-8',
      'Application/JSON',
      'application/vnd.acme+json',
      'text/plain',
      'text/plain;charset=UTF-8',
      'application/x-www-form-urlencoded',
      'multipart/form-data',
      'application/jsonx',
      'application/octet-stream',
    ]) {
      expect((await echo(raw('{"x":1}', { 'Content-Type': type }))).body.input).toEqual({ x: 1 });
    }
    const untyped = new Request(`${ORIGIN}/acme/tickets/echo`, {
      method: 'POST',
      body: new TextEncoder().encode('{"x":1}'),
    });
    expect(untyped.headers.get('content-type')).toBeNull();
    expect((await echo(untyped)).body.input).toEqual({ x: 1 });
  });

  it('runs a command posted with fetch defaults: a string body, labelled text/plain', async () => {
    const request = new Request(`${ORIGIN}/acme/tickets/echo`, {
      method: 'POST',
      body: JSON.stringify({ x: 1 }),
    });
    // Fetch labels it text/plain;charset=UTF-8; Bun leaves it unlabelled.
    const type = request.headers.get('content-type');
    expect(type === null || type.startsWith('text/plain')).toBe(true);
    const { status, body } = await echo(request);
    expect(status).toBe(200);
    expect(body.input).toEqual({ x: 1 });
  });

  it('answers 400 for a body that is not JSON, whatever its Content-Type', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
      const response = await handler(raw('x=1', { 'Content-Type': type }));
      expect(response.status).toBe(400);
      expect((await errorOf(response)).code).toBe('invalid_request');
    }
  });

  it('answers 403 forbidden to what a page may post cross-site without a preflight', async () => {
    const crossSite = [
      { 'Sec-Fetch-Site': 'cross-site' },
      { 'Sec-Fetch-Site': 'same-site' },
      { Origin: 'https://evil.example' },
      { Origin: 'null' },
    ];
    for (const site of crossSite) {
      for (const type of [
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data',
      ]) {
        const response = await handler(raw('{"x":1}', { 'Content-Type': type, ...site }));
        expect(response.status).toBe(403);
        const error = await errorOf(response);
        expect(error.code).toBe('forbidden');
        expect(error.field).toBe('Content-Type');
        expect(error.received).toBe(type);
      }
      // A Blob without a type is posted with no Content-Type at all, as simple as text/plain.
      const untyped = await handler(raw(new TextEncoder().encode('{"x":1}'), site));
      expect(untyped.status).toBe(403);
      expect((await errorOf(untyped)).received).toBeNull();
    }
  });

  it('takes the baseUrl origin as the request own behind a proxy', async () => {
    const proxied = createFetchHandler(acmeDefinition(), {
      logger: memoryLogger(),
      baseUrl: 'https://tools.example/plugins',
    });
    const from = (origin: string) =>
      proxied(raw('{"x":1}', { 'Content-Type': 'text/plain', Origin: origin }));
    expect((await from('https://tools.example')).status).toBe(200);
    expect((await from(ORIGIN)).status).toBe(200);
    expect((await from('https://evil.example')).status).toBe(403);
  });

  it('runs what the same origin or no browser sent, and JSON from any site', async () => {
    const allowed = [
      { 'Sec-Fetch-Site': 'same-origin' },
      { 'Sec-Fetch-Site': 'none' },
      { Origin: ORIGIN },
      // Sec-Fetch-Site decides when present: Origin is only read without it.
      { 'Sec-Fetch-Site': 'same-origin', Origin: 'https://other.example' },
    ];
    for (const site of allowed) {
      const { status, body } = await echo(
        raw('{"x":1}', { 'Content-Type': 'text/plain', ...site }),
      );
      expect(status).toBe(200);
      expect(body.input).toEqual({ x: 1 });
    }
    // application/json is never posted cross-site without a preflight, which this kit does not
    // answer with CORS headers; so a request that carries it came through one, or from no browser.
    const json = await echo(
      raw('{"x":1}', { 'Content-Type': 'application/json', 'Sec-Fetch-Site': 'cross-site' }),
    );
    expect(json.status).toBe(200);
  });

  it('answers 400 invalid_request for malformed JSON', async () => {
    for (const body of ['{', '{"a":}', "{'a':1}", 'undefined', '{"a":1}{']) {
      const response = await handler(post('/acme/tickets/echo', body));
      expect(response.status).toBe(400);
      expect((await errorOf(response)).code).toBe('invalid_request');
    }
  });

  it('answers 400 invalid_request for JSON that is not an object', async () => {
    for (const body of ['[]', '[{"a":1}]', 'null', '42', '"text"', 'true']) {
      const response = await handler(post('/acme/tickets/echo', body));
      expect(response.status).toBe(400);
      expect((await errorOf(response)).message).toMatch(/JSON object/);
    }
  });

  // With Content-Length the body is read whole; without it, counted as it streams.
  const bytes = (body: Uint8Array<ArrayBuffer>, length: boolean) =>
    raw(body, {
      'Content-Type': 'application/json',
      ...(length ? { 'Content-Length': String(body.byteLength) } : {}),
    });

  it('answers 400 invalid_request for bytes that are not UTF-8, with or without Content-Length', async () => {
    const malformed = [
      [0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d], // {"<FF>":1}
      [...new TextEncoder().encode('{"t":"caf'), 0xe9, 0x22, 0x7d], // Latin-1 "café"
      [...new TextEncoder().encode('{"t":"\uFFFD'), 0xc3, 0x22, 0x7d], // a real U+FFFD, then a bad byte
      // A 4-byte sequence cut short: its three bytes decode to one U+FFFD, itself three bytes in
      // UTF-8, so a decoder that replaces leaves the length as it was.
      [...new TextEncoder().encode('{"t":"'), 0xf0, 0x9f, 0x98, 0x22, 0x7d],
    ];
    for (const length of [true, false]) {
      for (const body of malformed) {
        const response = await handler(bytes(new Uint8Array(body), length));
        expect(`${length} ${body}: ${response.status}`).toBe(`${length} ${body}: 400`);
        expect((await errorOf(response)).message).toMatch(/UTF-8/);
      }
    }
  });

  it('answers 400 "could not be read" for a body that fails mid-stream, with or without Content-Length', async () => {
    for (const headers of [{}, { 'Content-Length': '20' }]) {
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          controller.enqueue(new TextEncoder().encode('{"title":'));
          controller.error(new Error('connection reset'));
        },
      });
      const response = await handler(streamRequest(body, headers));
      expect(response.status).toBe(400);
      const error = await errorOf(response);
      expect([error.code, error.message]).toEqual([
        'invalid_request',
        'The body could not be read',
      ]);
    }
  });

  it('answers 400 "could not be read" for a body already taken by someone else', async () => {
    const { request } = streamed(1, 10);
    request.body?.getReader(); // e.g. a middleware that read it first
    const response = await handler(request);
    expect(response.status).toBe(400);
    expect((await errorOf(response)).message).toBe('The body could not be read');
  });

  it('answers 400 "could not be read" when the runtime\'s read throws rather than rejects', async () => {
    const request = raw('{"a":1}', { 'content-type': 'application/json', 'content-length': '7' });
    Object.defineProperty(request, 'arrayBuffer', {
      value: () => {
        throw new TypeError('Body is unusable');
      },
    });
    const response = await handler(request);
    expect(response.status).toBe(400);
    expect((await errorOf(response)).message).toBe('The body could not be read');
  });

  it('answers a fault in the checks before the read with a logged 500, not as an unreadable body', async () => {
    const logger = memoryLogger();
    const faulty = createFetchHandler(acmeDefinition(), { logger });
    const request = raw('{"a":1}', { 'content-type': 'application/json' });
    const headers = request.headers;
    Object.defineProperty(request, 'headers', {
      value: {
        get: (name: string) => {
          if (name === 'content-length') throw new RangeError('a broken Headers');
          return headers.get(name);
        },
      },
    });
    const response = await faulty(request);
    expect(response.status).toBe(500);
    expect(logger.warnings.some((line) => line.includes('a broken Headers'))).toBe(true);
  });

  it('passes a U+FFFD the client sent on to the handler', async () => {
    const body = new TextEncoder().encode('{"t":"a\uFFFDb"}');
    for (const length of [true, false]) {
      const { status, body: answer } = await echo(bytes(body, length));
      expect(status).toBe(200);
      expect(answer.input).toEqual({ t: 'a\uFFFDb' });
    }
  });

  it('answers 413 payload_too_large when Content-Length exceeds maxBodyBytes, before reading', async () => {
    const { request, pulled } = streamed(1, 10, { 'Content-Length': '5000' });
    const response = await handler(request);
    expect(response.status).toBe(413);
    expect((await errorOf(response)).code).toBe('payload_too_large');
    expect(pulled()).toBeLessThanOrEqual(1);
  });

  it('answers 413 for an oversized JSON body', async () => {
    const response = await handler(post('/acme/tickets/echo', { pad: 'x'.repeat(2000) }));
    expect(response.status).toBe(413);
  });

  it('counts streamed bytes: 413 without Content-Length, reading little past the limit', async () => {
    const { request, pulled } = streamed(100, 100);
    const response = await handler(request);
    expect(response.status).toBe(413);
    expect((await errorOf(response)).code).toBe('payload_too_large');
    // 1024 bytes is 11 chunks; a stream may buffer a few ahead, never the whole 10 000 bytes
    expect(pulled()).toBeLessThan(20);
  });

  it('counts the bytes of a body whose Content-Length is not plain digits', async () => {
    // RFC 9110 §8.6: 1*DIGIT. Anything else is no length to trust, so the stream is counted.
    for (const length of ['+5', '1e3', '0x10', '5.0', '-1', '5,5']) {
      const small = streamed(5, 100, { 'Content-Length': length });
      expect((await handler(small.request)).status).toBe(200);
      const large = streamed(30, 100, { 'Content-Length': length });
      expect((await handler(large.request)).status).toBe(413);
    }
    // Digits past 2^53 are still a length, and far over the limit.
    const huge = streamed(1, 10, { 'Content-Length': '9'.repeat(400) });
    expect((await handler(huge.request)).status).toBe(413);
    expect(huge.pulled()).toBeLessThanOrEqual(1);
  });

  it('counts streamed bytes even when Content-Length understates them', async () => {
    const { request } = streamed(30, 100, { 'Content-Length': '10' });
    expect((await handler(request)).status).toBe(413);
  });

  it('accepts a streamed body under the limit', async () => {
    const response = await handler(streamed(5, 100).request); // 500 spaces: whitespace only → {}
    expect(response.status).toBe(200);
  });

  it('accepts a body of exactly maxBodyBytes', async () => {
    const body = `{"p":"${'x'.repeat(1024 - 8)}"}`;
    expect(body.length).toBe(1024);
    expect((await handler(post('/acme/tickets/echo', body))).status).toBe(200);
  });

  it('defaults maxBodyBytes to 1 MiB', async () => {
    const defaults = createFetchHandler(acmeDefinition(), { logger: memoryLogger() });
    const under = JSON.stringify({ p: 'x'.repeat(1024 * 1024 - 20) });
    const over = JSON.stringify({ p: 'x'.repeat(1024 * 1024) });
    expect((await defaults(post('/acme/tickets/echo', under))).status).toBe(200);
    expect((await defaults(post('/acme/tickets/echo', over))).status).toBe(413);
  });
});

describe('input schema validation (draft 2020-12)', () => {
  const create = (body: unknown) => handler(post('/acme/tickets/create', body));

  it('passes a valid input to the handler', async () => {
    const response = await create({ title: 'Broken printer', labels: ['hw'] });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { title: string }).title).toBe('Broken printer');
  });

  it('answers 422 validation_failed naming the failing field', async () => {
    const cases: [unknown, string, string][] = [
      [{ title: 3 }, 'title', '/title'],
      [{ title: '' }, 'title', '/title'],
      [{}, 'title', '/title'],
      [{ title: 'x', labels: ['ok', 7] }, 'labels.1', '/labels/1'],
      [{ title: 'x', extra: true }, 'extra', '/extra'],
    ];
    for (const [body, field, pointer] of cases) {
      const response = await create(body);
      expect(response.status).toBe(422);
      const error = await errorOf(response);
      expect(error.code).toBe('validation_failed');
      expect(error.field).toBe(field);
      expect(String(error.message).startsWith(`${pointer}: `)).toBe(true);
    }
  });

  it('gives a readable message', async () => {
    const type = await errorOf(await create({ title: 3 }));
    expect(type.message).toMatch(/string/);
    const missing = await errorOf(await create({}));
    expect(missing.message).toMatch(/required property "title"/);
    const extra = await errorOf(await create({ title: 'x', extra: 1 }));
    expect(extra.message).toMatch(/not allowed/);
  });

  it('words a maxProperties failure as one (the validator words it as minProperties)', async () => {
    const def = acmeGroup({
      c: { description: 'd', input: { type: 'object', maxProperties: 1 }, handler: () => ({}) },
    });
    const handler = createFetchHandler(def, { logger: memoryLogger() });
    const error = await errorOf(await handler(post('/acme/g/c', { a: 1, b: 2 })));
    expect(error.message).toBe('/: Instance has more than 1 property.');
  });

  it('names an awkward key plainly in field and exactly, as a JSON Pointer, in the message', async () => {
    const def = acmeGroup({
      c: {
        description: 'd',
        input: {
          type: 'object',
          properties: {
            'first name': { type: 'string' },
            título: { type: 'string' },
            '100%#': { type: 'string' },
          },
          required: ['a/b~c'],
        },
        handler: () => ({}),
      },
    });
    const strict = createFetchHandler(def, { logger: memoryLogger() });
    const cases: [Record<string, unknown>, string, string][] = [
      [{}, 'a/b~c', '/a~1b~0c'],
      [{ 'a/b~c': 1, 'first name': 1 }, 'first name', '/first name'],
      [{ 'a/b~c': 1, título: 1 }, 'título', '/título'],
      [{ 'a/b~c': 1, '100%#': 1 }, '100%#', '/100%#'],
    ];
    for (const [body, field, pointer] of cases) {
      const error = await errorOf(await strict(post('/acme/g/c', body)));
      expect(error.field).toBe(field);
      expect(String(error.message).startsWith(`${pointer}: `)).toBe(true);
    }
  });

  it('refuses with 422, not a 500, an input nested too deep for a schema that refers to itself', async () => {
    // The validator recurses once per level under `items: {$ref}`: 100,000 levels (about 200 KB)
    // run it out of stack on every runtime.
    const def = acmeGroup({
      c: {
        description: 'd',
        input: {
          type: 'object',
          properties: { a: { $ref: '#/$defs/n' } },
          $defs: { n: { type: 'array', items: { $ref: '#/$defs/n' } } },
        },
        handler: () => ({ ok: true }),
      },
    });
    const strict = createFetchHandler(def, { logger: memoryLogger() });
    const depth = 100_000;
    const body = `{"a":${'['.repeat(depth)}${']'.repeat(depth)}}`;
    const response = await strict(
      new Request(`${ORIGIN}/acme/g/c`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      }),
    );
    expect(response.status).toBe(422);
    const error = await errorOf(response);
    expect(error.code).toBe('validation_failed');
    expect(error.message).toMatch(/nests too deeply/);
    // a shallow one still runs
    expect((await strict(post('/acme/g/c', { a: [[[]]] }))).status).toBe(200);
  });

  it('validates with draft 2020-12 keywords (prefixItems, dependentRequired)', async () => {
    const def = acmeGroup({
      c: {
        description: 'd',
        input: {
          type: 'object',
          properties: {
            pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] },
          },
          dependentRequired: { card: ['cvc'] },
        },
        handler: () => ({ ok: true }),
      },
    });
    const strict = createFetchHandler(def, { logger: memoryLogger() });
    expect((await strict(post('/acme/g/c', { pair: ['a', 1] }))).status).toBe(200);
    const bad = await strict(post('/acme/g/c', { pair: [1, 'a'] }));
    expect(bad.status).toBe(422);
    expect((await errorOf(bad)).field).toBe('pair.0');
    expect((await strict(post('/acme/g/c', { card: '4242' }))).status).toBe(422);
  });

  it('refuses at creation a schema the validator could only fail at each call, naming where', () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ $ref: '#/$defs/missing' }, /input\.\$ref "#\/\$defs\/missing" resolves to nothing/],
      [
        { type: 'object', properties: { a: { $ref: 'https://elsewhere.example/schema' } } },
        /input\.properties\.a\.\$ref/,
      ],
      [
        { type: 'object', properties: { a: { type: 'string', pattern: '[' } } },
        /input\.properties\.a: "\[" is not a regular expression/,
      ],
      [
        { type: 'object', patternProperties: { '(': {} } },
        /input: "\(" is not a regular expression/,
      ],
      [{ type: 'objcet' }, /input\.type "objcet" is not a JSON Schema type/],
      [
        {
          type: 'object',
          properties: { l: { type: 'array', items: { type: ['string', 'text'] } } },
        },
        /input\.properties\.l\.items\.type "text"/,
      ],
      [{ anyOf: [{ type: 'string' }, { $ref: '#/nowhere' }] }, /input\.anyOf\[1\]\.\$ref/],
      [
        { type: 'object', properties: { a: { $ref: '' } } },
        /input\.properties\.a\.\$ref "" resolves to nothing/,
      ],
      [
        { type: 'object', dependencies: { card: { $ref: '#/missing' } } },
        /input\.dependencies\.card\.\$ref/,
      ],
      [
        { type: 'object', dependencies: { card: { properties: { cvc: { pattern: '(' } } } } },
        /input\.dependencies\.card\.properties\.cvc: "\(" is not a regular expression/,
      ],
      [{ type: 'object', not: { type: 'strnig' } }, /input\.not\.type "strnig"/],
    ];
    for (const [input, message] of cases) {
      const def = acmeGroup({ c: { description: 'd', input, handler: () => ({}) } });
      expect(() => createFetchHandler(def, { logger: memoryLogger() })).toThrow(TypeError);
      expect(() => createFetchHandler(def, { logger: memoryLogger() })).toThrow(message);
    }
  });

  it('resolves the references a schema can make: $defs, an $anchor, an $id of its own', async () => {
    const input = {
      $id: 'https://acme.example/create',
      type: 'object',
      properties: {
        a: { $ref: '#/$defs/short' },
        b: { $ref: '#named' },
        c: { $ref: 'https://acme.example/create#/$defs/short' },
      },
      $defs: {
        short: { type: 'string', maxLength: 2 },
        named: { $anchor: 'named', type: 'integer' },
      },
    };
    const strict = createFetchHandler(
      acmeGroup({ c: { description: 'd', input, handler: () => ({}) } }),
      {
        logger: memoryLogger(),
      },
    );
    expect((await strict(post('/acme/g/c', { a: 'ok', b: 1, c: 'ok' }))).status).toBe(200);
    for (const [body, field] of [
      [{ a: 'long' }, 'a'],
      [{ b: 'x' }, 'b'],
      [{ c: 'long' }, 'c'],
    ] as const) {
      const response = await strict(post('/acme/g/c', body));
      expect(response.status).toBe(422);
      expect((await errorOf(response)).field).toBe(field);
    }
  });

  it("names the failure inside a $ref or allOf, not the wrapper's own 'subschema had errors'", async () => {
    const input = {
      type: 'object',
      properties: { a: { $ref: '#/$defs/t' }, b: { allOf: [{ $ref: '#/$defs/t' }] } },
      $defs: { t: { type: 'string', minLength: 2 } },
    };
    const strict = createFetchHandler(
      acmeGroup({ c: { description: 'd', input, handler: () => ({}) } }),
      { logger: memoryLogger() },
    );
    for (const field of ['a', 'b']) {
      const error = await errorOf(await strict(post('/acme/g/c', { [field]: 'x' })));
      expect(error.field).toBe(field);
      expect(error.message).toMatch(new RegExp(`^/${field}: String is too short`));
    }
  });

  it('judges by the schema as JSON has it when the handler is made: what the archive publishes', async () => {
    const served = async (input: Record<string, unknown>) => {
      const def = acmeGroup({ c: { description: 'd', input, handler: () => ({ ok: true }) } });
      const handler = createFetchHandler(def, { logger: memoryLogger() });
      const status = async (body: unknown) => (await handler(post('/acme/g/c', body))).status;
      const published = async () =>
        (await manifestOf(await handler(new Request(`${ORIGIN}/`)))).commands[0]?.input;
      return { status, published };
    };
    // A keyword not enumerable is not in the published schema: neither the quick check nor the
    // validator applies it.
    const hidden: Record<string, unknown> = { type: 'object' };
    Object.defineProperty(hidden, 'required', { value: ['title'], enumerable: false });
    const quiet = await served(hidden);
    expect(await quiet.published()).toEqual({ type: 'object' });
    expect(await quiet.status({})).toBe(200);
    expect(await quiet.status({ title: 5 })).toBe(200);
    // A change after creation changes neither the answers nor the archive.
    const later = { type: 'object', properties: { title: { type: 'string' } } };
    const { status, published } = await served(later);
    later.properties.title = { type: 'number' };
    expect(await status({ title: 'x' })).toBe(200);
    expect(await status({ title: 5 })).toBe(422);
    expect(await published()).toEqual({
      type: 'object',
      properties: { title: { type: 'string' } },
    });
  });

  it("takes a frozen schema, and leaves the author's schema objects as they were", async () => {
    const title = Object.freeze({ type: 'string', minLength: 1 });
    const input = Object.freeze({
      type: 'object',
      properties: Object.freeze({ title, ref: Object.freeze({ $ref: '#/properties/title' }) }),
    });
    const def = acmeGroup({ c: { description: 'd', input, handler: () => ({ ok: true }) } });
    const served = createFetchHandler(def, { logger: memoryLogger() });
    expect((await served(post('/acme/g/c', { title: 'x', ref: 'y' }))).status).toBe(200);
    expect((await served(post('/acme/g/c', { ref: '' }))).status).toBe(422);
    const open = { type: 'object', properties: { a: { $ref: '#/$defs/t' } }, $defs: { t: {} } };
    createFetchHandler(acmeGroup({ c: { description: 'd', input: open, handler: () => ({}) } }), {
      logger: memoryLogger(),
    });
    expect(Object.getOwnPropertyNames(open)).toEqual(['type', 'properties', '$defs']);
    expect(Object.getOwnPropertyNames(open.properties.a)).toEqual(['$ref']);
  });

  it('refuses at creation a schema JSON would change or cannot hold, naming where', () => {
    const cyclic: Record<string, unknown> = { type: 'object' };
    cyclic.properties = { self: cyclic };
    const cases: [Record<string, unknown>, RegExp][] = [
      [cyclic, /input\.properties\.self refers to itself/],
      // JSON writes Infinity as null: a maximum that would refuse every number
      [
        { type: 'object', properties: { n: { maximum: Number.POSITIVE_INFINITY } } },
        /input\.properties\.n\.maximum must be a finite number/,
      ],
      [
        { type: 'object', properties: { n: { minimum: Number.NaN } } },
        /input\.properties\.n\.minimum must be a finite number/,
      ],
      [
        { type: 'object', properties: { s: { pattern: /^a/ } } },
        /input\.properties\.s\.pattern must be plain JSON data .*got RegExp/,
      ],
      [
        { type: 'object', enum: [new Date(0)] },
        /input\.enum\[0\] must be plain JSON data .*got Date/,
      ],
      [
        Object.assign(Object.create({ required: ['title'] }), { type: 'object' }),
        /input must be plain JSON data/,
      ],
      [
        { type: 'object', default: () => ({}) },
        /input\.default must be plain JSON data .*got function/,
      ],
      [{ type: 'object', const: 1n }, /input\.const must be plain JSON data .*got bigint/],
    ];
    for (const [input, message] of cases) {
      const def = acmeGroup({ c: { description: 'd', input, handler: () => ({}) } });
      expect(() => createFetchHandler(def)).toThrow(TypeError);
      expect(() => createFetchHandler(def)).toThrow(message);
    }
    // a property set to undefined is absent, as JSON has it
    const absent = acmeGroup({
      c: {
        description: 'd',
        input: { type: 'object', maxProperties: undefined },
        handler: () => ({}),
      },
    });
    expect(() => createFetchHandler(absent, { logger: memoryLogger() })).not.toThrow();
  });

  it("serves a command whose handler is its class's, as it did before taking copies", async () => {
    class Create {
      description = 'Open a ticket';
      handler(input: Record<string, unknown>) {
        return { made: input.title };
      }
    }
    const served = createFetchHandler(acmeGroup({ create: new Create() }), {
      logger: memoryLogger(),
    });
    const response = await served(post('/acme/g/create', { title: 'x' }));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ made: 'x' });
  });
});
