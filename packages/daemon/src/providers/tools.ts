import { listCovers, type ProviderTool, pluginToolName } from '@svc/protocol';
import { scopeCeiling } from '../nodes/ceiling.ts';
import type { Principal } from '../ports.ts';
import { commandsOf, nodeProfile } from './caller.ts';
import type { ProviderDeps } from './types.ts';

/** `providers.tools`: the commands whose group the caller's scopes cover. */
export function providerTools(
  deps: Pick<ProviderDeps, 'store' | 'profiles'>,
  principal: Principal,
  provider?: string,
): ProviderTool[] {
  const scopes = scopeCeiling(principal);
  const allowed = nodeProfile(deps, principal)?.tools ?? null;
  const rows =
    provider === undefined ? deps.store.plugins.all() : [deps.store.plugins.get(provider)];
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
}
