/**
 * `providers` (SPEC, resource map; docs/api-v1.md, "Providers"): the installed plugins' commands
 * as an app, or the owner, lists and calls them. A call is authenticated as a node's is
 * (plugins/call.ts does both): the shared token from a profile's env store, or a token
 * the daemon's directory signs for the caller. Which scope gates it is the same too:
 * `<provider>:<group>`, held by the caller's token.
 */
import {
  type BrokerPlugin,
  type ProviderCallBody as CallBody,
  listCovers,
  type Plugin,
  type ProviderCallResult,
  type ProviderTool,
  pluginToolName,
} from '@svc/protocol';
import type { DirectoryService } from '../directory/service.ts';
import { ApiError } from '../errors.ts';
import { scopeCeiling } from '../nodes/ceiling.ts';
import {
  CALL_TIMEOUT_MS,
  callPluginCommand,
  MAX_ANSWER_BYTES,
  type PluginAnswer,
  requestIdFrom,
} from '../plugins/call.ts';
import type { PluginRow } from '../plugins/store.ts';
import type { Principal } from '../ports.ts';
import type { ProfileService } from '../profiles/service.ts';
import type { Store } from '../store/index.ts';

/**
 * The plugin statuses whose error envelope is the caller's to read: what it sent was refused
 * (bad input, not allowed, not found, a state, too large, rate limited). A 401 is not among
 * them: it refuses the credentials the daemon sent, which the caller's own token cannot mend.
 */
const PASSED_THROUGH = new Set([400, 403, 404, 409, 413, 422, 429]);

/** A plugin's refusal as the caller gets it: the plugin's status and envelope. */
export interface ProviderRefusal {
  status: number;
  error: { code: string; message: string; field?: string; received?: unknown };
}

export type ProviderCallAnswer =
  | { ok: true; result: ProviderCallResult }
  | { ok: false; refusal: ProviderRefusal };

export function providerService(deps: {
  store: Store;
  profiles: Pick<ProfileService, 'settings' | 'envValues' | 'find'>;
  directory: Pick<DirectoryService, 'mint' | 'mintForCaller'>;
}) {
  const { store, profiles, directory } = deps;

  /**
   * A node token's profile and the tools it allows (`null`: all), or `null` for any other token:
   * a node calls here as its broker would, with its own profile's env store and tools cut.
   */
  function nodeProfile(principal: Principal): { name: string; tools: string[] | null } | null {
    if (principal.kind !== 'node' || principal.nodeId === null) return null;
    const name = store.nodes.get(principal.nodeId)?.profile ?? 'default';
    return { name, tools: profiles.find(name)?.tools ?? null };
  }

  /** Only a shared token is read from a profile, and only from one the caller may use (404). */
  function envStore(profile: string, principal: Principal): Record<string, string> {
    profiles.settings(profile, principal);
    return profiles.envValues(profile);
  }

  return {
    /** `providers.tools`: the commands whose group the caller's scopes cover. */
    tools(principal: Principal, provider?: string): ProviderTool[] {
      const scopes = scopeCeiling(principal);
      const allowed = nodeProfile(principal)?.tools ?? null;
      const rows = provider === undefined ? store.plugins.all() : [store.plugins.get(provider)];
      return rows.flatMap((row) =>
        row === undefined
          ? []
          : commandsOf(row)
              .filter(
                (command) =>
                  listCovers(scopes, command.scope) &&
                  (allowed === null || allowed.includes(command.scope)),
              )
              .map((command) => ({
                provider: row.name,
                group: command.group,
                command: command.name,
                name: pluginToolName(command),
                description: command.description,
                input_schema: command.input,
                streaming: command.streaming,
                scope: command.scope,
              })),
      );
    },

    /** `providers.call` */
    async call(
      principal: Principal,
      body: CallBody,
      requestId: string,
      signal: AbortSignal,
    ): Promise<ProviderCallAnswer> {
      const { provider, group, command: name } = body;
      // Before the plugin is looked up: a caller without the scope learns nothing of what is
      // installed.
      const scope = `${provider}:${group}`;
      const scopes = scopeCeiling(principal);
      if (!listCovers(scopes, scope)) {
        throw new ApiError('scope_missing', `this token's scopes do not cover '${scope}'`, {
          field: scope,
          received: scopes ?? [],
        });
      }
      const own = nodeProfile(principal);
      if (own !== null) {
        if (own.tools !== null && !own.tools.includes(scope)) {
          throw new ApiError('forbidden', `profile ${own.name} does not allow the tool ${scope}`, {
            field: 'group',
          });
        }
        if (body.profile !== undefined && body.profile !== own.name) {
          throw new ApiError(
            'forbidden',
            `a node calls with its own profile's env store (${own.name}), not ${body.profile}'s`,
            { field: 'profile' },
          );
        }
      }
      const row = store.plugins.get(provider);
      if (row === undefined) {
        throw new ApiError('not_found', `no provider '${provider}' is installed`, {
          field: 'provider',
        });
      }
      const commands = commandsOf(row).filter((c) => c.group === group);
      if (commands.length === 0) {
        throw new ApiError('not_found', `provider ${provider} has no group '${group}'`, {
          field: 'group',
        });
      }
      const command = commands.find((c) => c.name === name);
      if (command === undefined) {
        throw new ApiError('not_found', `provider ${provider} has no command ${group}.${name}`, {
          field: 'command',
        });
      }
      const profile = own?.name ?? body.profile ?? 'default';
      const env = row.auth === 'token' ? envStore(profile, principal) : {};
      const plugin: Pick<BrokerPlugin, 'name' | 'origin' | 'auth' | 'auth_env'> = row;
      const answer = await callPluginCommand({
        plugin,
        command,
        input: body.input,
        profile,
        env,
        directoryToken: async () =>
          (principal.kind === 'node' && principal.nodeId !== null
            ? await directory.mint(principal.nodeId, provider, group)
            : await directory.mintForCaller(principal.appId, provider, group)
          ).token,
        requestId: requestIdFrom(requestId),
        signal,
        timeoutMs: CALL_TIMEOUT_MS,
      });
      return answerOf(answer, { provider, group, command: name });
    },
  };
}

export type ProviderService = ReturnType<typeof providerService>;

function commandsOf(row: PluginRow): Plugin['commands'] {
  return row.commands;
}

/**
 * The rule of docs/api-v1.md, "Providers": a result is the answer; a plugin's refusal with a
 * status in `PASSED_THROUGH` and a well-formed envelope is passed on as it is; every other
 * failure of the plugin is a 502 `provider_error`, never a 500 (the daemon did not fail).
 */
function answerOf(
  answer: PluginAnswer,
  called: { provider: string; group: string; command: string },
): ProviderCallAnswer {
  const { provider } = called;
  switch (answer.kind) {
    case 'no_token':
      throw new ApiError('invalid_state', answer.message, { field: 'profile' });
    case 'no_directory_token':
      // The directory's own refusal (its TCP listener off, a damaged key) says what to fix.
      throw answer.cause;
    case 'failed':
      throw new ApiError('provider_error', answer.message);
    case 'refused': {
      const error = envelopeOf(answer.body);
      if (error !== null && PASSED_THROUGH.has(answer.status)) {
        return { ok: false, refusal: { status: answer.status, error } };
      }
      const why =
        answer.status === 401
          ? ': it refused the credentials the daemon sent (a shared token: set it again in the profile env store; directory auth: its audience must be the endpoint as installed)'
          : error === null
            ? ' without an error envelope'
            : `: ${error.message}`;
      throw new ApiError('provider_error', `plugin ${provider} answered ${answer.status}${why}`, {
        received: { status: answer.status, body: answer.body },
      });
    }
    case 'cut':
      throw new ApiError(
        'provider_error',
        `plugin ${provider} answered more than ${MAX_ANSWER_BYTES} bytes`,
      );
    case 'result':
      if (!answer.json) {
        throw new ApiError('provider_error', `plugin ${provider} answered no JSON`);
      }
      return { ok: true, result: { ...called, output: answer.value } };
    case 'stream': {
      const { items, end } = answer;
      if (end.kind === 'error') {
        throw new ApiError('provider_error', `plugin ${provider}'s stream failed midway`, {
          received: end.body,
        });
      }
      if (end.kind === 'broken' && items.length === 0) {
        throw new ApiError('provider_error', `plugin ${provider}'s stream: ${end.reason}`);
      }
      return {
        ok: true,
        result: { ...called, output: null, items, truncated: end.kind !== 'done' },
      };
    }
  }
}

/** The plugin's `{error: {code, message, field?, received?}}`, else `null`. */
function envelopeOf(body: unknown): ProviderRefusal['error'] | null {
  const error = isObject(body) ? body.error : undefined;
  if (!isObject(error) || typeof error.code !== 'string' || typeof error.message !== 'string') {
    return null;
  }
  return {
    code: error.code,
    message: error.message,
    ...(typeof error.field === 'string' && { field: error.field }),
    ...('received' in error && { received: error.received }),
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
