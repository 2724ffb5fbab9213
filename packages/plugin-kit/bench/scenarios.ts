// The benchmark rows. Each serves one endpoint at least three ways on the same server adapter:
// the kit; a bare Fetch handler doing only what the endpoint cannot skip (read the body,
// check the token, verify the JWT, answer the same bytes); and the endpoint written with Hono.
// "The same bytes" is the whole answer: the bare handlers send the kit's headers too, its
// `Svc-Request-Id` included (a constant of the same length), and the Hono apps echo or make one
// with Hono's own `requestId` middleware, since every answer of the endpoint carries one.
// The no-auth and token rows add a fourth: `minimal`, the command written by hand with only the
// checks the kit must make on that request, each the cheapest way we know (see minimalCommand).
// A floor for an implementation on this adapter: kit/minimal is about what the kit's own
// structure costs, and minimal/bare what the work itself does.
// Every bare handler has the kit's signature, `(Request) => Promise<Response>`: a Response
// returned synchronously takes a path of @hono/node-server's listener that a handler keeping
// that contract cannot take, so a synchronous bare would measure the contract, not the kit.
import { type Schema, Validator } from '@cfworker/json-schema';
import { createFetchHandler, definePlugin, type FetchHandlerOptions } from '@svc/plugin-kit';
import { Hono, type MiddlewareHandler } from 'hono';
import { bearerAuth } from 'hono/bearer-auth';
import { etag } from 'hono/etag';
import { requestId } from 'hono/request-id';
import { createLocalJWKSet, importJWK, jwtVerify } from 'jose';
import { createTokenCheck } from '../src/auth/token.ts';
import { callerRequestId } from '../src/http/request-id.ts';
import type { Directory } from './directory.ts';

export type Handler = (request: Request) => Response | Promise<Response>;
export type Variant = 'kit' | 'bare' | 'hono' | 'minimal' | 'reads';
export type Row = {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** Send a distinct directory token with every request. */
  tokens?: boolean;
  /** Ask the server for its ETag first and send it as If-None-Match. */
  conditional?: boolean;
  status: 200 | 304;
  /** The share of bare's requests/s the kit must reach (the targets); none for the 200
   * archive, which only has to beat Hono. */
  target?: number;
  handlers: Record<'kit' | 'bare' | 'hono', Handler> & { minimal?: Handler; reads?: Handler };
};

/** The variants a row's rates are measured for, in the order the tables print them. */
export function variantsOf(row: Row): Variant[] {
  return row.handlers.minimal === undefined
    ? ['kit', 'bare', 'hono']
    : ['kit', 'bare', 'hono', 'minimal'];
}

/** Those and `reads`, which only `bench:instructions` counts: every variant `serve.ts` serves. */
export function allVariantsOf(row: Row): Variant[] {
  return row.handlers.reads === undefined ? variantsOf(row) : [...variantsOf(row), 'reads'];
}

const COMMAND = '/plugins/acme/tickets/create';
const ARCHIVE = '/plugins/acme';
const input: Schema = {
  type: 'object',
  properties: { title: { type: 'string', minLength: 1 } },
  required: ['title'],
};
const MAX_BODY_BYTES = 1 << 20; // the kit's default limit
const body = JSON.stringify({ title: 'Printer on fire' });
const result = JSON.stringify({ id: 'T-1', title: 'Printer on fire' });
const jsonHeaders = { 'content-type': 'application/json' };
const REQUEST_ID = 'Svc-Request-Id';
// The bench's command requests send this id, which every variant echoes.
const commandHeaders = { ...jsonHeaders, [REQUEST_ID]: 'bench' };
// The archive requests send none: the kit makes a UUID-shaped id, so bare sends one as long.
const madeId = { [REQUEST_ID]: '00000000-0000-8000-8000-000000000000' };

// The command's handler, which the minimal variant calls too.
const create = async ({ title }: { title: string }) => ({ id: 'T-1', title });

const plugin = definePlugin({
  name: 'acme',
  description: 'Acme support tickets',
  groups: {
    tickets: {
      description: 'Support tickets',
      commands: {
        create: {
          description: 'Open a ticket',
          input,
          handler: create,
        },
      },
    },
  },
});

const quiet = { warn() {} }; // the no-auth rows would log the kit's one warning

export async function createRows(token: string, directory: Directory): Promise<Row[]> {
  const kit = (options: FetchHandlerOptions) =>
    createFetchHandler(plugin, { logger: quiet, ...options });
  const archive = await archiveOf(kit({}));
  const publicKey = await importJWK(directory.publicJwk, 'ES256');
  const verifyOptions = {
    issuer: directory.issuer,
    audience: directory.audience,
    algorithms: ['ES256'],
  };
  const bearer = (request: Request) =>
    request.headers.get('authorization')?.slice('Bearer '.length);
  const answer = () => new Response(result, { headers: commandHeaders });

  const commandRow = (name: string, extra: Partial<Row>, handlers: Row['handlers']): Row => ({
    name,
    method: 'POST',
    path: COMMAND,
    headers: commandHeaders,
    body,
    status: 200,
    target: 0.9,
    handlers,
    ...extra,
  });

  return [
    commandRow(
      'command no-auth',
      {},
      {
        kit: kit({}),
        bare: async (request) => {
          await request.arrayBuffer();
          return answer();
        },
        hono: honoCommand([]),
        minimal: minimalCommand(undefined),
        reads: readsOnly(answer, ['svc-request-id', 'content-type', 'content-length']),
      },
    ),
    commandRow(
      'command token',
      { headers: { ...commandHeaders, authorization: `Bearer ${token}` } },
      {
        kit: kit({ token }),
        bare: async (request) => {
          if (request.headers.get('authorization') !== `Bearer ${token}`)
            return new Response(null, { status: 401 });
          await request.arrayBuffer();
          return answer();
        },
        hono: honoCommand([bearerAuth({ token })]),
        minimal: minimalCommand(token),
        // bare reads Authorization already
        reads: readsOnly(
          answer,
          ['authorization', 'svc-request-id', 'content-length'],
          `Bearer ${token}`,
        ),
      },
    ),
    commandRow(
      'command directory (ES256)',
      { tokens: true },
      {
        kit: kit({
          auth: { issuer: directory.issuer, audience: directory.audience },
          jwks: { fetch: directory.fetchJwks },
        }),
        bare: async (request) => {
          await jwtVerify(bearer(request) ?? '', publicKey, verifyOptions);
          await request.arrayBuffer();
          return answer();
        },
        hono: honoCommand([honoDirectory(directory, verifyOptions)]),
      },
    ),
    {
      name: 'archive 200',
      method: 'GET',
      path: ARCHIVE,
      headers: {},
      status: 200,
      handlers: {
        kit: kit({}),
        bare: async () => new Response(archive.bytes, { headers: archive.headers }),
        hono: honoArchive(archive.bytes),
      },
    },
    {
      name: 'archive 304',
      method: 'GET',
      path: ARCHIVE,
      headers: {},
      conditional: true,
      status: 304,
      target: 0.9,
      handlers: {
        kit: kit({}),
        bare: async (request) =>
          request.headers.get('if-none-match') === archive.etag
            ? new Response(null, { status: 304, headers: archive.notModified })
            : new Response(archive.bytes, { headers: archive.headers }),
        hono: honoArchive(archive.bytes),
      },
    },
  ];
}

async function archiveOf(handler: Handler) {
  const response = await handler(new Request(`http://127.0.0.1${ARCHIVE}`));
  const etag = response.headers.get('etag') ?? '';
  const bytes = new Uint8Array(await response.arrayBuffer());
  // Built once, as the kit's are: a bare handler spreading objects per request would flatter it.
  const headers = {
    'content-type': 'application/x-tar',
    'content-length': String(bytes.byteLength),
    etag,
    'cache-control': 'no-transform',
    ...madeId,
  };
  // RFC 9110 §15.4.5: a 304 repeats the validator and caching headers a 200 would send.
  const notModified = { etag, 'cache-control': 'no-transform', ...madeId };
  return { bytes, etag, headers, notModified };
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The command by hand: each check the kit must make on the benchmark's request, each the
 * cheapest way we know, and nothing else. The bearer token, taken from `Authorization` as RFC 6750
 * allows and compared in constant time as the spec asks; the caller's `Svc-Request-Id`, 1-200
 * visible ASCII characters; without auth the content type (the kit's cross-site check reads it;
 * this refuses any other type outright, which costs no more); the length limit, before the body
 * is read (a body without Content-Length, which the kit would count as it streams, is refused);
 * strict UTF-8; the parse, to a JSON object (no body is `{}`); the schema's rules for `title`;
 * the plugin's handler; the JSON answer with the id. The token and the id are checked by the
 * kit's own functions, already the cheapest we know: there kit and minimal run the same code.
 */
function minimalCommand(token: string | undefined): Handler {
  const refuse = (status: number) => new Response(null, { status });
  const tokenCheck = token === undefined ? null : createTokenCheck(token);
  return async (request) => {
    if (tokenCheck !== null && !tokenCheck(request)) return refuse(401);
    const id = callerRequestId(request) ?? crypto.randomUUID();
    const headers = request.headers;
    if (token === undefined && headers.get('content-type') !== 'application/json') {
      return refuse(403);
    }
    const length = headers.get('content-length');
    if (length === null || !(Number(length) <= MAX_BODY_BYTES)) return refuse(413);
    let input: unknown;
    try {
      const text = utf8.decode(await request.arrayBuffer());
      input = text.trim() === '' ? {} : JSON.parse(text);
    } catch {
      return refuse(400);
    }
    if (typeof input !== 'object' || input === null || Array.isArray(input)) return refuse(400);
    const { title } = input as { title?: unknown };
    if (typeof title !== 'string' || title.length === 0) return refuse(422);
    const output = await create({ title });
    return new Response(JSON.stringify(output), {
      headers: { 'content-type': 'application/json', 'Svc-Request-Id': id },
    });
  };
}

/**
 * Bare, plus reading the request headers the kit must read on the row, each once, as minimal and
 * the kit do: how much of the distance from bare to minimal the adapter's header lookups take,
 * before any check is made. The values are only tested for being there (and the bearer for its
 * value, as bare does), so the reads are not dead code.
 */
function readsOnly(
  answer: () => Response,
  [first, second, third]: [string, string, string],
  bearer?: string,
): Handler {
  return async (request) => {
    const headers = request.headers;
    const a = headers.get(first);
    if (bearer !== undefined && a !== bearer) return new Response(null, { status: 401 });
    if (a === null || headers.get(second) === null || headers.get(third) === null) {
      return new Response(null, { status: 400 });
    }
    await request.arrayBuffer();
    return answer();
  };
}

// The same command as a Hono route: middlewares, JSON body, the same JSON Schema check.
function honoCommand(middlewares: MiddlewareHandler[]): Handler {
  const validator = new Validator(input, '2020-12');
  const app = new Hono();
  app.use(COMMAND, requestId({ headerName: REQUEST_ID }));
  for (const middleware of middlewares) app.use(COMMAND, middleware);
  app.post(COMMAND, async (c) => {
    const data = await c.req.json();
    const check = validator.validate(data);
    if (!check.valid) return c.json({ error: { code: 'validation_failed' } }, 422);
    return c.json({ id: 'T-1', title: data.title });
  });
  return app.fetch;
}

// Directory auth as a Hono middleware with jose: verify, then the group's scope.
function honoDirectory(
  directory: Directory,
  options: Parameters<typeof jwtVerify>[2],
): MiddlewareHandler {
  const keys = createLocalJWKSet({ keys: [directory.publicJwk] });
  return async (c, next) => {
    const token = c.req.header('authorization')?.match(/^Bearer (.+)$/)?.[1];
    if (!token) return c.json({ error: { code: 'unauthorized' } }, 401);
    try {
      const { payload } = await jwtVerify(token, keys, options);
      if (!String(payload.scope).split(' ').includes('acme:tickets')) {
        return c.json({ error: { code: 'scope_missing' } }, 403);
      }
    } catch {
      return c.json({ error: { code: 'unauthorized' } }, 401);
    }
    await next();
  };
}

// The archive as a Hono route with its etag middleware (which hashes the body per request).
function honoArchive(bytes: Uint8Array<ArrayBuffer>): Handler {
  const app = new Hono();
  const headers = { 'content-type': 'application/x-tar', 'cache-control': 'no-transform' };
  app.get(ARCHIVE, requestId({ headerName: REQUEST_ID }), etag(), (c) =>
    c.body(bytes, 200, headers),
  );
  return app.fetch;
}
