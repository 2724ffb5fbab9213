/**
 * `createFetchHandler`: one `(Request) => Promise<Response>` that serves the plugin's archive on
 * GET and runs its commands on POST, in any runtime with Fetch `Request`/`Response`.
 */
import { createArchiveCache } from './archive/archive.ts';
import { ANY_OBJECT } from './archive/manifest.ts';
import { createDirectoryVerifier } from './auth/directory.ts';
import { createTokenCheck } from './auth/token.ts';
import { validateDefinitions } from './define-plugin.ts';
import { internalError, PluginError, toPluginError } from './errors.ts';
import { readJsonBody } from './http/body.ts';
import { ifNoneMatch } from './http/etag.ts';
import { callerRequestId, REQUEST_ID_HEADER } from './http/request-id.ts';
import { errorResponse, json } from './http/respond.ts';
import { sseResponse } from './http/sse.ts';
import { resolveOptions } from './options.ts';
import { type CommandEntry, createRouter } from './routing/routes.ts';
import { compileInput, type InputCheck } from './schema.ts';
import type {
  Caller,
  CommandContext,
  CommandDefinition,
  FetchHandlerOptions,
  PluginDefinition,
} from './types.ts';

export function createFetchHandler(
  plugin: PluginDefinition | readonly PluginDefinition[],
  options: FetchHandlerOptions = {},
): (request: Request) => Promise<Response> {
  const defs = validateDefinitions(plugin);
  const versioned = Array.isArray(plugin) || defs[0]?.version !== undefined;
  const name = defs[0]?.name ?? '';
  const { authMode, mount, maxBodyBytes, logger } = resolveOptions(options, name);
  const router = createRouter(defs, versioned);
  const archive = createArchiveCache(authMode, versioned);
  const inputChecks = compileInputs(defs);
  const checkToken = options.token === undefined ? null : createTokenCheck(options.token);
  const verify =
    options.auth === undefined ? null : createDirectoryVerifier(options.auth, options.jwks ?? {});
  const majors = defs.map((def) => def.version ?? 0).sort((a, b) => a - b);
  const versions = { latest: majors.at(-1), supported: majors };
  const archiveCacheControl = authMode === 'token' ? 'private, no-transform' : 'no-transform';

  async function handle(request: Request, requestId: string): Promise<Response> {
    const route = router.resolve(request.method, new URL(request.url).pathname);
    if (route.kind === 'versions') return json(200, versions, requestId);
    // Shared-token mode guards everything but `/versions`, even a 404 or OPTIONS: the archive
    // is private, so which paths exist is too.
    if (checkToken !== null && !(await checkToken(request))) {
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
        const { bytes, etag } = await archive(route.def, mount ?? route.mount);
        const headers = {
          ETag: etag,
          'Cache-Control': archiveCacheControl,
          [REQUEST_ID_HEADER]: requestId,
        };
        // RFC 9110 §13.1.2: a matching If-None-Match on GET/HEAD answers 304 with the ETag.
        if (ifNoneMatch(request.headers.get('If-None-Match'), etag)) {
          return new Response(null, { status: 304, headers });
        }
        return new Response(bytes, {
          status: 200,
          headers: {
            ...headers,
            'Content-Type': 'application/x-tar',
            'Content-Length': String(bytes.byteLength),
          },
        });
      }
      case 'command':
        return runCommand(request, requestId, route.entry);
    }
  }

  async function runCommand(
    request: Request,
    requestId: string,
    entry: CommandEntry,
  ): Promise<Response> {
    let caller: Caller | undefined;
    if (verify !== null) {
      const claims = await verify(request);
      // The scope gates the whole group of the leaf called (SPEC, Directory mode 4).
      if (!claims.scope.includes(entry.scope)) {
        throw new PluginError(403, 'scope_missing', `The token lacks the scope ${entry.scope}`, {
          field: entry.scope,
          received: entry.scope,
        });
      }
      const callerId = callerRequestId(request);
      if (callerId === null) {
        throw new PluginError(
          400,
          'request_id_missing',
          `A command under directory auth needs the ${REQUEST_ID_HEADER} header (1-200 visible ASCII characters)`,
          { field: REQUEST_ID_HEADER },
        );
      }
      const { runId, ...required } = claims;
      caller = { ...required, requestId: callerId, ...(runId === undefined ? {} : { runId }) };
    }
    const label = `command ${entry.def.name}/${entry.group}/${entry.name}`;
    const input = await readJsonBody(request, maxBodyBytes);
    try {
      inputChecks.get(entry.command)?.(input);
    } catch (thrown) {
      // A PluginError is the 422; anything else is a schema the validator cannot apply.
      throw failure(thrown, label, requestId);
    }

    const abort = new AbortController();
    const onAbort = () => abort.abort(request.signal.reason);
    if (request.signal.aborted) onAbort();
    else request.signal.addEventListener('abort', onAbort, { once: true });
    const ctx: CommandContext = {
      request,
      signal: abort.signal,
      requestId,
      version: versioned ? (entry.def.version ?? null) : null,
      ...(caller === undefined ? {} : { caller }),
    };
    let result: Awaited<ReturnType<CommandDefinition['handler']>>;
    try {
      result = await entry.command.handler(input, ctx);
    } catch (thrown) {
      throw failure(thrown, label, requestId);
    }
    if (isAsyncIterable(result)) {
      return sseResponse(result, requestId, abort, (thrown) => failure(thrown, label, requestId));
    }
    if (typeof result !== 'object' || result === null || Array.isArray(result)) {
      logger.warn(`${label} returned ${kind(result)}, not a JSON object (request ${requestId})`);
      throw internalError();
    }
    return json(200, result, requestId);
  }

  /** The error a caller sees for anything thrown; unexpected ones are logged for the author. */
  function failure(thrown: unknown, label: string, requestId: string): PluginError {
    if (!(thrown instanceof PluginError)) {
      const reason = thrown instanceof Error ? `${thrown.name}: ${thrown.message}` : kind(thrown);
      logger.warn(`${label} failed (request ${requestId}): ${reason}`);
    }
    return toPluginError(thrown);
  }

  return async function svcPluginHandler(request: Request): Promise<Response> {
    const requestId = callerRequestId(request) ?? crypto.randomUUID();
    let response: Response;
    try {
      response = await handle(request, requestId);
    } catch (thrown) {
      const error = failure(thrown, request.method, requestId);
      const challenge = error.status === 401 ? { 'WWW-Authenticate': 'Bearer' } : {};
      response = errorResponse(error, requestId, challenge);
    }
    // HEAD answers the GET's status and headers without its body (RFC 9110 §9.3.2).
    if (request.method === 'HEAD' && response.body !== null) {
      await response.body.cancel();
      return new Response(null, { status: response.status, headers: response.headers });
    }
    return response;
  };
}

function compileInputs(defs: readonly PluginDefinition[]): Map<CommandDefinition, InputCheck> {
  const checks = new Map<CommandDefinition, InputCheck>();
  defs.forEach((def, index) => {
    for (const [group, groupDef] of Object.entries(def.groups)) {
      for (const [name, command] of Object.entries(groupDef.commands)) {
        const at = `plugin${defs.length > 1 ? `[${index}]` : ''}.groups.${group}.commands.${name}.input`;
        checks.set(command, compileInput(command.input ?? ANY_OBJECT, at));
      }
    }
  });
  return checks;
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function'
  );
}

function kind(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
}
