import { describe, expect, it } from 'vitest';
import {
  type CommandContext,
  createFetchHandler,
  type JsonObject,
  PluginError,
} from '../src/index.ts';
import {
  acmeDefinition,
  acmeGroup,
  errorOf,
  get,
  memoryLogger,
  ORIGIN,
  post,
  sleep,
  sseEvents,
} from './helpers.ts';

const logger = memoryLogger();
const handler = createFetchHandler(acmeDefinition(), { logger });

describe('results', () => {
  it('answers a plain object as 200 bare JSON', async () => {
    const response = await handler(post('/acme/tickets/create', { title: 'x' }));
    expect(response.status).toBe(200);
    expect(response.headers.get('Content-Type')).toBe('application/json');
    const body = (await response.json()) as Record<string, unknown>;
    expect(body.id).toBe('T-1');
    expect(body.error).toBeUndefined();
  });

  it('streams an async iterable as text/event-stream, then event: done', async () => {
    const response = await handler(post('/acme/tickets/watch', { count: 3 }));
    expect(response.status).toBe(200);
    expect(response.headers.get('Content-Type')).toBe('text/event-stream');
    expect(response.headers.get('Cache-Control')).toBe('no-cache, no-transform');
    const text = await response.text();
    expect(text).toBe(
      'data: {"seq":0}\n\ndata: {"seq":1}\n\ndata: {"seq":2}\n\nevent: done\ndata: {}\n\n',
    );
  });

  it('keeps each item on one data line, whatever it contains', async () => {
    const def = acmeGroup({
      lines: {
        description: 'd',
        async *handler() {
          yield { text: 'two\nlines\r\n\n' };
          yield 'plain';
          yield null;
        },
      },
    });
    const streaming = createFetchHandler(def, { logger: memoryLogger() });
    const events = sseEvents(await (await streaming(post('/acme/g/lines', {}))).text());
    expect(events).toEqual([
      { event: 'message', data: { text: 'two\nlines\r\n\n' } },
      { event: 'message', data: 'plain' },
      { event: 'message', data: null },
      { event: 'done', data: {} },
    ]);
  });

  it('streams an iterable returned by a plain (non-generator) handler', async () => {
    const def = acmeGroup({
      s: {
        description: 'd',
        streaming: true,
        handler: () => ({
          async *[Symbol.asyncIterator]() {
            yield 1;
          },
        }),
      },
    });
    const streaming = createFetchHandler(def, { logger: memoryLogger() });
    expect(await (await streaming(post('/acme/g/s', {}))).text()).toBe(
      'data: 1\n\nevent: done\ndata: {}\n\n',
    );
  });
});

describe('errors thrown by handlers', () => {
  it('turn a PluginError into its envelope and status', async () => {
    const response = await handler(post('/acme/tickets/refuse', {}, { 'Svc-Request-Id': 'r-77' }));
    expect(response.status).toBe(409);
    expect(response.headers.get('Content-Type')).toBe('application/json');
    expect(await response.json()).toStrictEqual({
      error: {
        code: 'ticket_locked',
        message: 'The ticket is locked',
        field: 'id',
        received: 'T-9',
        request_id: 'r-77',
      },
    });
  });

  it('turn any other throw into 500 internal_error without the thrown message', async () => {
    const response = await handler(post('/acme/tickets/crash', {}));
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(text).not.toContain('hunter2');
    const error = (JSON.parse(text) as { error: Record<string, unknown> }).error;
    expect(error.code).toBe('internal_error');
    expect(error.field).toBeUndefined();
    // the author still learns what happened, from the logger
    expect(
      logger.warnings.some((w) => w.includes('acme/tickets/crash') && w.includes('hunter2')),
    ).toBe(true);
  });

  it('turn a rejected promise or a thrown non-Error into 500 internal_error', async () => {
    const def = acmeGroup({
      reject: { description: 'd', handler: () => Promise.reject(new Error('nope')) },
      string: {
        description: 'd',
        handler: () => {
          throw 'a string';
        },
      },
    });
    const failing = createFetchHandler(def, { logger: memoryLogger() });
    for (const path of ['/acme/g/reject', '/acme/g/string']) {
      const response = await failing(post(path, {}));
      expect(response.status).toBe(500);
      expect((await errorOf(response)).code).toBe('internal_error');
    }
  });

  it('answer 500 internal_error when a handler returns something other than an object', async () => {
    // A Date is an object that serializes as a string; a Response, as `{}`.
    const results: unknown[] = [
      undefined,
      null,
      [1, 2],
      'text',
      42,
      new Date(0),
      new Response('raw'),
      new Map([['id', 'T-1']]),
      new Error('oops'),
    ];
    for (const result of results) {
      const local = memoryLogger();
      const def = acmeGroup({ c: { description: 'd', handler: () => result as JsonObject } });
      const response = await createFetchHandler(def, { logger: local })(post('/acme/g/c', {}));
      expect(response.status).toBe(500);
      expect((await errorOf(response)).code).toBe('internal_error');
      expect(local.warnings.some((w) => w.includes('not a JSON object'))).toBe(true);
    }
  });

  it('answers an object that serializes as one, a class instance too', async () => {
    class Ticket {
      id = 'T-1';
      get title() {
        return 'not serialized: a getter on the prototype';
      }
    }
    const withJson = { toJSON: () => ({ id: 'T-2' }) };
    for (const [result, text] of [
      [new Ticket(), '{"id":"T-1"}'],
      [withJson, '{"id":"T-2"}'],
      [Object.create(null), '{}'],
    ] as const) {
      const def = acmeGroup({ c: { description: 'd', handler: () => result as JsonObject } });
      const response = await createFetchHandler(def, { logger: memoryLogger() })(
        post('/acme/g/c', {}),
      );
      expect(response.status).toBe(200);
      expect(await response.text()).toBe(text);
    }
  });

  it('answers a throw before the first item with its own status, not a 200 stream', async () => {
    const logger = memoryLogger();
    let closed = 0;
    const def = acmeGroup({
      missing: {
        description: 'd',
        async *handler() {
          try {
            await Promise.resolve(); // a check that awaits, then refuses
            throw new PluginError(404, 'not_found', 'No ticket T-9', { field: 'id' });
            // biome-ignore lint/correctness/noUnreachable: a generator needs a yield
            yield {};
          } finally {
            closed++;
          }
        },
      },
      broken: {
        description: 'd',
        async *handler() {
          throw new Error('secret connection string');
          // biome-ignore lint/correctness/noUnreachable: a generator needs a yield
          yield {};
        },
      },
    });
    const streaming = createFetchHandler(def, { logger });
    const missing = await streaming(post('/acme/g/missing', {}, { 'Svc-Request-Id': 'r-2' }));
    expect(missing.status).toBe(404);
    expect(missing.headers.get('Content-Type')).toBe('application/json');
    expect(await missing.json()).toEqual({
      error: { code: 'not_found', message: 'No ticket T-9', field: 'id', request_id: 'r-2' },
    });
    expect(closed).toBe(1);
    const broken = await streaming(post('/acme/g/broken', {}));
    expect(broken.status).toBe(500);
    expect(await broken.text()).not.toContain('secret');
    expect(logger.warnings.some((w) => w.includes('secret connection string'))).toBe(true);
  });

  it('sends the headers of a stream whose first item is slow in coming, then the item', async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let yielded = false;
    const def = acmeGroup({
      watch: {
        description: 'd',
        async *handler() {
          await gate;
          yielded = true;
          yield { n: 1 };
        },
      },
    });
    // Real time: the answer comes after FIRST_ITEM_WAIT_MS, with the gate still shut.
    const response = await createFetchHandler(def, { logger: memoryLogger() })(
      post('/acme/g/watch', {}),
    );
    expect(response.status).toBe(200);
    expect(yielded).toBe(false);
    release();
    expect(sseEvents(await response.text())).toEqual([
      { event: 'message', data: { n: 1 } },
      { event: 'done', data: {} },
    ]);
  });

  it('drops, unlogged, what a stream does once its client left during the wait', async () => {
    const logger = memoryLogger();
    let closed = false;
    const def = acmeGroup({
      watch: {
        description: 'd',
        async *handler(_input, ctx) {
          try {
            // a watch that follows ctx.signal: the client's leaving makes it throw
            await new Promise((_resolve, reject) => {
              ctx.signal.addEventListener('abort', () => reject(new Error('aborted')));
            });
            yield { n: 1 };
          } finally {
            closed = true;
          }
        },
      },
    });
    const client = new AbortController();
    const request = new Request(post('/acme/g/watch', {}), { signal: client.signal });
    const answering = createFetchHandler(def, { logger })(request);
    setTimeout(() => client.abort(), 20);
    const response = await answering;
    expect(response.status).toBe(200);
    expect(response.body).toBe(null);
    expect(logger.warnings.filter((w) => w.includes('failed'))).toEqual([]);
    expect(closed).toBe(true);
  });

  it('answers a first item JSON cannot hold as a 500, not a 200 stream', async () => {
    const logger = memoryLogger();
    const def = acmeGroup({
      big: {
        description: 'd',
        async *handler() {
          yield { n: 1n };
        },
      },
    });
    const response = await createFetchHandler(def, { logger })(post('/acme/g/big', {}));
    expect(response.status).toBe(500);
    expect((await errorOf(response)).code).toBe('internal_error');
    expect(logger.warnings.some((w) => w.includes('BigInt'))).toBe(true);
  });

  it('end a stream with event: error carrying the envelope when it throws midway', async () => {
    const def = acmeGroup({
      known: {
        description: 'd',
        async *handler() {
          yield { n: 1 };
          throw new PluginError(429, 'rate_limited', 'Slow down');
        },
      },
      unknown: {
        description: 'd',
        async *handler() {
          yield { n: 1 };
          throw new Error('secret connection string');
        },
      },
    });
    const streaming = createFetchHandler(def, { logger: memoryLogger() });
    const known = await streaming(post('/acme/g/known', {}, { 'Svc-Request-Id': 'r-1' }));
    expect(known.status).toBe(200);
    expect(sseEvents(await known.text())).toEqual([
      { event: 'message', data: { n: 1 } },
      {
        event: 'error',
        data: { error: { code: 'rate_limited', message: 'Slow down', request_id: 'r-1' } },
      },
    ]);
    const unknown = await (await streaming(post('/acme/g/unknown', {}))).text();
    expect(unknown).not.toContain('secret');
    const events = sseEvents(unknown);
    expect(events).toHaveLength(2);
    expect(events[1]?.event).toBe('error');
    expect(events[1]?.data).toHaveProperty('error.code', 'internal_error');
  });
});

describe('PluginError', () => {
  it('carries status, code, message, field and received', () => {
    const error = new PluginError(404, 'ticket_not_found', 'No ticket T-9', {
      field: 'id',
      received: 'T-9',
    });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('PluginError');
    expect(error.status).toBe(404);
    expect(error.code).toBe('ticket_not_found');
    expect(error.message).toBe('No ticket T-9');
    expect(error.field).toBe('id');
    expect(error.received).toBe('T-9');
  });

  it('rejects a status outside 400-599 and a code that is not snake_case', () => {
    expect(() => new PluginError(200, 'ok', 'm')).toThrow(TypeError);
    expect(() => new PluginError(600, 'x', 'm')).toThrow(/status/);
    expect(() => new PluginError(400, 'Bad Code', 'm')).toThrow(/code/);
    expect(
      () => new PluginError(409, 'conflict', 'm', { field: 10n as unknown as string }),
    ).toThrow(/PluginError field must be a string, got bigint/);
  });

  it('omits field and received from the envelope when not given', async () => {
    const def = acmeGroup({
      c: {
        description: 'd',
        handler: () => {
          throw new PluginError(400, 'bad_input', 'Bad');
        },
      },
    });
    const response = await createFetchHandler(def, { logger: memoryLogger() })(
      post('/acme/g/c', {}),
    );
    expect(Object.keys(await errorOf(response))).toEqual(['code', 'message', 'request_id']);
  });

  // What JSON cannot hold must not cost the caller the answer: before, the handler's promise
  // rejected and a server sent its own bare 500 without the envelope or `Svc-Request-Id`.
  const cycle: Record<string, unknown> = {};
  cycle.self = cycle;
  const unserializable = [
    ['a BigInt', 10n],
    ['a cycle', cycle],
    [
      'a toJSON that throws',
      {
        toJSON() {
          throw new Error('no');
        },
      },
    ],
  ] as const;

  // The runtime matrix's vitest stand-in has no `it.each`.
  for (const [label, received] of unserializable) {
    it(`answers its envelope without a received of ${label}`, async () => {
      const def = acmeGroup({
        c: {
          description: 'd',
          handler: () => {
            throw new PluginError(409, 'conflict', 'Taken', { field: 'id', received });
          },
        },
      });
      const response = await createFetchHandler(def, { logger: memoryLogger() })(
        post('/acme/g/c', {}),
      );
      expect(response.status).toBe(409);
      const error = await errorOf(response);
      expect(error).toEqual({
        code: 'conflict',
        message: 'Taken',
        field: 'id',
        request_id: response.headers.get('Svc-Request-Id'),
      });
    });

    it(`sends event: error mid-stream without a received of ${label}`, async () => {
      const def = acmeGroup({
        c: {
          description: 'd',
          async *handler() {
            yield { n: 1 };
            throw new PluginError(409, 'conflict', 'Taken', { received });
          },
        },
      });
      const response = await createFetchHandler(def, { logger: memoryLogger() })(
        post('/acme/g/c', {}),
      );
      const events = sseEvents(await response.text());
      expect(events.map((e) => e.event)).toEqual(['message', 'error']);
      expect(events[1]?.data).toEqual({
        error: {
          code: 'conflict',
          message: 'Taken',
          request_id: response.headers.get('Svc-Request-Id'),
        },
      });
    });
  }
});

describe('Svc-Request-Id', () => {
  it('is on every answer: success, error, stream, archive, 304, 405, OPTIONS', async () => {
    const requests = [
      post('/acme/tickets/create', { title: 'x' }),
      post('/acme/tickets/create', { title: 3 }),
      post('/acme/tickets/nope', {}),
      post('/acme/tickets/watch', {}),
      get('/'),
      get('/', { 'If-None-Match': '*' }),
      new Request(`${ORIGIN}/`, { method: 'PUT' }),
      new Request(`${ORIGIN}/`, { method: 'OPTIONS' }),
      new Request(`${ORIGIN}/`, { method: 'HEAD' }),
    ];
    for (const request of requests) {
      const response = await handler(request);
      expect(response.headers.get('Svc-Request-Id')).toMatch(/^[0-9a-f-]{36}$/);
      await response.body?.cancel();
    }
  });

  it("echoes the caller's id, in the header, the envelope and ctx.requestId", async () => {
    const ok = await handler(
      post('/acme/tickets/create', { title: 'x' }, { 'Svc-Request-Id': 'abc-1' }),
    );
    expect(ok.headers.get('Svc-Request-Id')).toBe('abc-1');
    expect(((await ok.json()) as { request_id: string }).request_id).toBe('abc-1');
    const bad = await handler(post('/acme/tickets/create', {}, { 'Svc-Request-Id': 'abc-2' }));
    expect(bad.headers.get('Svc-Request-Id')).toBe('abc-2');
    expect((await errorOf(bad)).request_id).toBe('abc-2');
  });

  it('replaces an unusable id with a new one: 1-200 visible ASCII characters are usable', async () => {
    const idOf = async (id: string) =>
      (await handler(get('/', { 'Svc-Request-Id': id }))).headers.get('Svc-Request-Id');
    for (const usable of ['!', '~', 'x'.repeat(200), '!#-~09AZaz']) {
      expect(await idOf(usable)).toBe(usable);
    }
    // Headers trim the value's outer spaces and tabs, so the unusable ones sit inside.
    for (const unusable of ['x'.repeat(201), 'x'.repeat(500), 'a b', 'a\tb', 'a\x7fb', 'é']) {
      expect(await idOf(unusable)).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it('differs between requests without one', async () => {
    const a = (await handler(get('/'))).headers.get('Svc-Request-Id');
    const b = (await handler(get('/'))).headers.get('Svc-Request-Id');
    expect(a).not.toBe(b);
  });
});

describe('ctx.signal', () => {
  /** A plugin whose command waits until its signal aborts, reporting what it saw. */
  function waiting() {
    const seen: { aborted?: boolean; ctx?: CommandContext } = {};
    const def = acmeGroup({
      wait: {
        description: 'd',
        handler: (_input, ctx) =>
          new Promise((resolve) => {
            seen.ctx = ctx;
            const done = () => {
              seen.aborted = true;
              resolve({ aborted: true });
            };
            if (ctx.signal.aborted) done();
            else ctx.signal.addEventListener('abort', done);
          }),
      },
      ticks: {
        description: 'd',
        async *handler(_input, ctx) {
          seen.ctx = ctx;
          try {
            for (let i = 0; i < 1000; i++) {
              yield i;
              await sleep(1);
            }
          } finally {
            seen.aborted = ctx.signal.aborted;
          }
        },
      },
      // Its read is pending when the client leaves, and completes because of the abort.
      late: {
        description: 'd',
        async *handler(_input, ctx) {
          seen.ctx = ctx;
          try {
            yield 'first';
            await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
            yield 'after the client left';
          } finally {
            seen.aborted = ctx.signal.aborted;
          }
        },
      },
    });
    const logger = memoryLogger();
    return { handler: createFetchHandler(def, { logger }), seen, logger };
  }

  it('aborts when the request is aborted', async () => {
    const { handler: h, seen } = waiting();
    const controller = new AbortController();
    const pending = h(
      new Request(`${ORIGIN}/acme/g/wait`, { method: 'POST', signal: controller.signal }),
    );
    await sleep(5);
    expect(seen.ctx?.signal.aborted).toBe(false);
    controller.abort();
    const response = await pending;
    expect(seen.aborted).toBe(true);
    expect(response.status).toBe(200);
  });

  it('is already aborted when the request was', async () => {
    const { handler: h, seen } = waiting();
    const controller = new AbortController();
    controller.abort();
    const request = new Request(`${ORIGIN}/acme/g/wait`, {
      method: 'POST',
      signal: controller.signal,
    });
    await h(request);
    expect(seen.aborted).toBe(true);
  });

  it('aborts, and the generator runs its finally, when the client stops reading a stream', async () => {
    const { handler: h, seen } = waiting();
    const response = await h(post('/acme/g/ticks', {}));
    const reader = response.body?.getReader();
    await reader?.read();
    await reader?.read();
    await reader?.cancel();
    for (let i = 0; i < 50 && seen.aborted === undefined; i++) await sleep(2);
    expect(seen.ctx?.signal.aborted).toBe(true);
    expect(seen.aborted).toBe(true);
  });

  it('stops reading, and logs no failure, when a read completes after the client left', async () => {
    const { handler: h, seen, logger } = waiting();
    const response = await h(post('/acme/g/late', {}));
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: "first"\n\n');
    await sleep(5); // the stream asks for the next item, which waits on the signal
    await reader.cancel();
    for (let i = 0; i < 50 && seen.aborted === undefined; i++) await sleep(2);
    await sleep(5); // let the late `yield` settle and be dropped
    expect(seen.aborted).toBe(true);
    expect(logger.warnings.filter((warning) => warning.startsWith('command'))).toEqual([]);
  });
});
