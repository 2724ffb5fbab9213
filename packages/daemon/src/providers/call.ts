import { type BrokerPlugin, listCovers } from '@svc/protocol';
import { ApiError } from '../errors.ts';
import { scopeCeiling } from '../nodes/ceiling.ts';
import { CALL_TIMEOUT_MS, callPluginCommand, requestIdFrom } from '../plugins/call.ts';
import type { Principal } from '../ports.ts';
import { answerOf } from './answer.ts';
import { commandsOf, envStore, nodeProfile } from './caller.ts';
import type { CallBody, ProviderCallAnswer, ProviderDeps } from './types.ts';

/**
 * `providers.call`: the caller's scope, a node's own profile, then the plugin, its group and
 * command; the plugin's answer as the caller gets it (`answerOf`).
 */
export async function callProvider(
  deps: ProviderDeps,
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
  const own = nodeProfile(deps, principal);
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
  const row = deps.store.plugins.get(provider);
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
  const env = row.auth === 'token' ? envStore(deps, profile, principal) : {};
  const plugin: Pick<BrokerPlugin, 'name' | 'origin' | 'auth' | 'auth_env'> = row;
  const answer = await callPluginCommand({
    plugin,
    command,
    input: body.input,
    profile,
    env,
    directoryToken: async () =>
      (principal.kind === 'node' && principal.nodeId !== null
        ? await deps.directory.mint(principal.nodeId, provider, group)
        : await deps.directory.mintForCaller(principal.appId, provider, group)
      ).token,
    requestId: requestIdFrom(requestId),
    signal,
    timeoutMs: CALL_TIMEOUT_MS,
  });
  return answerOf(answer, { provider, group, command: name });
}
