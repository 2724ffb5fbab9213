import type { ProfileRow } from './store.ts';
import type { Profile, ProfileDeps, ProfileSettings } from './types.ts';

/** The settings nodes and model calls use, script included. */
export function toSettings(r: ProfileRow): ProfileSettings {
  return {
    name: r.name,
    model: r.model,
    system_prompt: r.system_prompt,
    tools: r.tools,
    scopes: r.scopes,
    budgets: r.budgets,
    workspace: r.workspace,
    network: r.network,
    command_env: r.command_env ?? [],
    app_id: r.app_id,
  };
}

/** A profile as answers show it: the model without its script, the env's names only. */
export function toDto(deps: Pick<ProfileDeps, 'store'>, r: ProfileRow): Profile {
  const model = r.model;
  return {
    name: r.name,
    description: r.description,
    model: model === null ? null : { provider: model.provider, model: model.model },
    scripted_turns: model?.script?.length ?? null,
    system_prompt: r.system_prompt,
    tools: r.tools,
    scopes: r.scopes,
    budgets: r.budgets,
    workspace: r.workspace,
    network: r.network,
    command_env: r.command_env ?? [],
    env: deps.store.profiles.envNames(r.name),
    app_id: r.app_id,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}
