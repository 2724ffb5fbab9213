/**
 * `createFetchHandler`: one `(Request) => Promise<Response>` that serves the plugin's archive on
 * GET and runs its commands on POST, in any runtime with Fetch `Request`/`Response`.
 */
import { type Archive, createArchiveCache } from './archive/archive.ts';
import { ANY_OBJECT } from './archive/manifest.ts';
import { createDirectoryVerifier } from './auth/directory.ts';
import { createTokenCheck } from './auth/token.ts';
import { HandlerContext } from './context.ts';
import { validateDefinitions } from './define-plugin.ts';
import { internalError, PluginError, toPluginError } from './errors.ts';
import { bodyText, parseObject, readBody, readFailure } from './http/body.ts';
import { ifNoneMatch } from './http/etag.ts';
import { callerRequestId, createRequestIds, REQUEST_ID_HEADER } from './http/request-id.ts';
import { errorResponse, json, jsonText } from './http/respond.ts';
import { sseResponse } from './http/sse.ts';
import { isPlainObject } from './is-object.ts';
import { resolveOptions, unauthenticated } from './options.ts';
import { type CommandEntry, createRouter, isPublic, type Route } from './routing/routes.ts';
import { compileInput } from './schema.ts';
import type { Caller, FetchHandlerOptions, PluginDefinition } from './types.ts';

export function createFetchHandler(
  plugin: PluginDefinition | readonly PluginDefinition[],
  options: FetchHandlerOptions = {},
): (request: Request) => Promise<Response> {
  const defs = validateDefinitions(plugin);
  const versioned = Array.isArray(plugin) || defs[0]?.version !== undefined;
  const name = defs[0]?.name ?? '';
  const { authMode, mount, origin, maxBodyBytes, logger } = resolveOptions(options, versioned);
  const router = createRouter(
    defs,
    versioned,
    (command, at) => compileInput(command.input ?? ANY_OBJECT, at),
    mount,
  );
  const archive = createArchiveCache(authMode, versioned);
  // The router keeps one route object per path it knows, so the archive a route serves is found
  // by the object's identity, without building and hashing the cache's key on every GET.
  const archiveOf = new WeakMap<Route, Archive>();
  const checkToken = options.token === undefined ? null : createTokenCheck(options.token);
  const verify =
    options.auth === undefined ? null : createDirectoryVerifier(options.auth, options.jwks ?? {});
  const majors = defs.map((def) => def.version ?? 0).sort((a, b) => a - b);
  const versions = { latest: majors.at(-1), supported: majors };
  const newRequestId = createRequestIds();
  // Cross-site posts are refused under no auth only (`readBody` says why).
  const site = authMode === 'none' ? origin : undefined;

  /**
   * Not `async`: an answer ready at once (an archive, an error) skips a promise and a turn. An
   * answer still to come is a promise that never rejects: each path turns its own failures into
   * their error answer.
   * @param callerId the caller's valid `Svc-Request-Id`, which `requestId` is when present
   */
  function handle(
    request: Request,
    requestId: string,
    callerId: string | null,
  ): Response | Promise<Response> {
    const route = router.resolve(request.method, request.url);
    if (route.kind === 'versions') return json(200, versions, requestId);
    // Shared-token mode guards everything but `/versions`, even a 404 or OPTIONS: the archive
    // is private, so which paths exist is too.
    if (checkToken !== null && !isPublic(route) && !checkToken(request)) {
      throw new PluginError(401, 'unauthorized', 'A valid bearer token is required');
    }
    switch (route.kind) {
      case 'options':
        return new Response(null, {
          status: 204,
          headers: { Allow: route.allow, [REQUEST_ID_HEADER]: requestId },
        });
      case 'error':
        return errorResponse(route.error, requestId, route.allow ? { Allow: route.allow } : {});
      case 'archive': {
        const served = archiveOf.get(route);
        if (served !== undefined) return archiveResponse(request, requestId, served);
        const built = archive(route.def, mount ?? route.mount);
        if (built instanceof Promise) {
          return built.then(
            (ready) => {
              archiveOf.set(route, ready);
              return archiveResponse(request, requestId, ready);
            },
            (thrown: unknown) => refusal(thrown, requestId, request.method),
          );
        }
        archiveOf.set(route, built);
        return archiveResponse(request, requestId, built);
      }
      case 'command':
        return runCommand(request, requestId, callerId, route.entry);
    }
  }

  /**
   * Auth (directory mode), body, input check, handler, answer. `async`, since awaiting a native
   * promise resumes one turn after it settles: with a handler that answers at once, the body's read
   * and the handler's promise are the only turns a command waits for.
   */
  async function runCommand(
    request: Request,
    requestId: string,
    callerId: string | null,
    entry: CommandEntry,
  ): Promise<Response> {
    try {
      const caller =
        verify === null ? undefined : await authorize(verify, request, callerId, entry);
      // Outside the `try`: what `readBody` throws at once is its own refusal, or a fault that
      // must answer 500 and be logged, not pass for an unreadable body.
      const reading = readBody(request, maxBodyBytes, site);
      let bytes: ArrayBuffer | Uint8Array;
      try {
        bytes = await reading;
      } catch (thrown) {
        throw readFailure(thrown);
      }
      const input = parseObject(bodyText(bytes, maxBodyBytes));
      entry.check(input);
      const ctx = new HandlerContext(
        request,
        requestId,
        versioned ? (entry.def.version ?? null) : null,
        caller,
      );
      let result: unknown = entry.command.handler(input, ctx);
      if (isThenable(result)) result = await result;
      if (isAsyncIterable(result)) {
        // awaited here, so that a throw before the first item is caught below
        return await sseResponse(
          result,
          request.signal,
          requestId,
          () => ctx.stop(),
          (thrown) => failure(thrown, requestId, entry),
        );
      }
      return answer(result, requestId, entry);
    } catch (thrown) {
      // A PluginError is what the caller sees; anything else (a handler's throw, a schema the
      // validator cannot apply) is logged for the author and answered as a bare 500.
      return refusal(thrown, requestId, entry);
    }
  }

  /** Directory mode: the token's claims as the caller, once its scope and request id pass. */
  async function authorize(
    verifyToken: NonNullable<typeof verify>,
    request: Request,
    callerId: string | null,
    entry: CommandEntry,
  ): Promise<Caller> {
    const claims = await verifyToken(request);
    // The scope gates the whole group of the leaf called (SPEC, Directory mode 4).
    if (!claims.scope.includes(entry.scope)) {
      throw new PluginError(403, 'scope_missing', `The token lacks the scope ${entry.scope}`, {
        field: entry.scope,
        received: entry.scope,
      });
    }
    if (callerId === null) {
      throw new PluginError(
        400,
        'request_id_missing',
        `A command under directory auth needs the ${REQUEST_ID_HEADER} header (1-200 visible ASCII characters)`,
        { field: REQUEST_ID_HEADER },
      );
    }
    return { ...claims, requestId: callerId };
  }

  /** A handler's result, not a stream, as the answer: it must be a JSON object. */
  function answer(result: unknown, requestId: string, entry: CommandEntry): Response {
    // An object may still serialize as something else: a Date as a string (its `toJSON`), and a
    // Map, an Error or a Response as an empty `{}` that hides what was meant. What is sent must
    // be an object, and an empty one only from a plain object.
    const text =
      typeof result !== 'object' || result === null || Array.isArray(result)
        ? undefined
        : (JSON.stringify(result) as string | undefined);
    if (
      text === undefined ||
      text.charCodeAt(0) !== 0x7b ||
      (text === '{}' && !isPlainObject(result as object))
    ) {
      logger.warn(
        `${label(entry)} returned ${kind(result)}, not a JSON object (request ${requestId})`,
      );
      throw internalError();
    }
    return jsonText(200, text, requestId);
  }

  /**
   * The error a caller sees for anything thrown; unexpected ones are logged for the author,
   * naming the command, or the method when no command was reached.
   */
  function failure(thrown: unknown, requestId: string, at: CommandEntry | string): PluginError {
    if (!(thrown instanceof PluginError)) {
      const reason = thrown instanceof Error ? `${thrown.name}: ${thrown.message}` : kind(thrown);
      const where = typeof at === 'string' ? at : label(at);
      logger.warn(`${where} failed (request ${requestId}): ${reason}`);
    }
    return toPluginError(thrown);
  }

  /** The error answer for anything thrown, with the challenge a 401 owes. */
  function refusal(thrown: unknown, requestId: string, at: CommandEntry | string): Response {
    const error = failure(thrown, requestId, at);
    const challenge = error.status === 401 ? { 'WWW-Authenticate': 'Bearer' } : {};
    return errorResponse(error, requestId, challenge);
  }

  // Made: the warning names a handler that exists (a bad option or schema above throws first).
  if (authMode === 'none') logger.warn(unauthenticated(name));

  // Not `async`: an answer ready at once (an archive, a 304, an early error) is handed back in a
  // settled promise, and one still to come as it is (`Promise.resolve` returns a native promise
  // unchanged), without the extra turn an `await` would take.
  return function svcPluginHandler(request: Request): Promise<Response> {
    const callerId = callerRequestId(request);
    const requestId = callerId ?? newRequestId();
    let answer: Response | Promise<Response>;
    try {
      answer = handle(request, requestId, callerId);
    } catch (thrown) {
      answer = refusal(thrown, requestId, request.method);
    }
    if (request.method === 'HEAD') return Promise.resolve(answer).then(headless);
    return Promise.resolve(answer);
  };
}

/** HEAD answers the GET's status and headers without its body (RFC 9110 §9.3.2). */
function headless(response: Response): Response | Promise<Response> {
  if (response.body === null) return response;
  return response.body
    .cancel()
    .then(() => new Response(null, { status: response.status, headers: response.headers }));
}

/**
 * The archive, or 304 when the client's copy is current (RFC 9110 §13.1.2, on GET and HEAD), with
 * the validator and caching headers a 200 would send (§15.4.5). The header names are spelled out,
 * `Svc-Request-Id` included: a literal with constant keys is built from a template.
 * `no-transform`: no proxy may compress the tar. A token-guarded archive needs no `private`: a
 * shared cache never reuses an answer to a request with `Authorization` (RFC 9111 §3.5).
 */
function archiveResponse(request: Request, requestId: string, archive: Archive): Response {
  if (ifNoneMatch(request.headers.get('if-none-match'), archive.etag)) {
    return new Response(null, {
      status: 304,
      headers: {
        ETag: archive.etag,
        'Cache-Control': 'no-transform',
        'Svc-Request-Id': requestId,
      },
    });
  }
  return new Response(archive.bytes, {
    status: 200,
    headers: {
      'Content-Type': 'application/x-tar',
      'Content-Length': archive.length,
      ETag: archive.etag,
      'Cache-Control': 'no-transform',
      'Svc-Request-Id': requestId,
    },
  });
}

function label(entry: CommandEntry): string {
  return `command ${entry.def.name}/${entry.group}/${entry.name}`;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function'
  );
}

function kind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value !== 'object') return typeof value;
  // `a Date`, `a Response`: the class says what was returned instead
  const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === 'string' && name !== 'Object' ? `a ${name}` : 'an object';
}
