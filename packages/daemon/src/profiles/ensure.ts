import { DEFAULT_BUDGETS, mergeBudgets, type NetworkPolicy } from '@svc/protocol';
import { checkScopes } from '../access/scopes.ts';
import { ApiError } from '../errors.ts';
import type { Principal } from '../ports.ts';
import { toDto } from './dto.ts';
import type { ProfileRow } from './store.ts';
import type { EnsureBody, Profile, ProfileDeps } from './types.ts';
import { actorOf, visible } from './visibility.ts';

const SETTINGS = [
  'description',
  'model',
  'system_prompt',
  'tools',
  'scopes',
  'budgets',
  'workspace',
  'network',
  'command_env',
] as const;

/**
 * `PUT /v1/profiles/{name}`: creates, or sets the fields given (`null` = back to the default).
 * A body that changes nothing writes nothing, so repeating it is a no-op.
 */
export function ensureProfile(
  deps: ProfileDeps,
  name: string,
  body: EnsureBody,
  principal: Principal,
): Profile {
  const { store, events } = deps;
  const actor = actorOf(principal);
  return store.db.transaction((afterCommit) => {
    const current = store.profiles.get(name);
    if (current !== undefined && actor !== null && current.app_id !== actor) {
      // Another app's profile is hidden from this one (404 on retrieve): the name is taken,
      // which cannot be hidden, but whose it is stays unsaid.
      if (!visible(current, actor)) {
        throw new ApiError('conflict', `the profile name '${name}' is taken; choose another`, {
          field: 'name',
        });
      }
      throw new ApiError(
        'forbidden',
        `profile '${name}' belongs to the owner; an app may change only the profiles it created`,
        { field: 'name' },
      );
    }
    const now = new Date().toISOString();
    const pick = <T>(given: T | null | undefined, kept: T | null): T | null =>
      given === undefined ? kept : given;
    const next: ProfileRow = {
      name,
      description: pick(body.description, current?.description ?? null),
      model: pick(body.model, current?.model ?? null),
      system_prompt: pick(body.system_prompt, current?.system_prompt ?? null),
      tools: pick(body.tools, current?.tools ?? null),
      scopes: pick(
        body.scopes && checkScopes(body.scopes, principal.scopes),
        current?.scopes ?? null,
      ),
      budgets: mergeBudgets(
        current === undefined ? DEFAULT_BUDGETS : current.budgets,
        body.budgets,
      ),
      // Only its shape here: whether a creator may work in it is asked at each node's create.
      workspace: pick(
        body.workspace && { repo: body.workspace.repo, base: body.workspace.base ?? null },
        current?.workspace ?? null,
      ),
      network: pick(networkOf(body.network, principal), current?.network ?? null),
      command_env: pick(body.command_env, current?.command_env ?? null),
      app_id: current === undefined ? actor : current.app_id,
      created_at: current?.created_at ?? now,
      updated_at: now,
    };
    if (current !== undefined && sameSettings(current, next)) return toDto(deps, current);
    store.profiles.upsert(next);
    afterCommit(() => deps.changed?.(name));
    const dto = toDto(deps, store.profiles.get(name)!);
    events.record(current === undefined ? 'profile.created' : 'profile.updated', name, {
      profile: dto,
    });
    return dto;
  });
}

/**
 * A profile's network, as its setter may grant it: `host` reaches every service on the machine
 * and beyond, which only the person (the owner's token) hands out; anyone may ask for `none`.
 * An owner's node holds no scope list, but is not the person: its own network is its ceiling.
 */
function networkOf(
  network: NetworkPolicy | null | undefined,
  principal: Principal,
): NetworkPolicy | null | undefined {
  if (network != null && network !== 'none' && principal.kind !== 'owner') {
    throw new ApiError(
      'forbidden',
      "only the owner may give a profile's nodes a network (the host's, or a list of domains)",
      { field: 'network' },
    );
  }
  return network;
}

/** Whether two rows hold the same settings, compared as they are stored (their JSON). */
function sameSettings(a: ProfileRow, b: ProfileRow): boolean {
  return SETTINGS.every((key) => JSON.stringify(a[key]) === JSON.stringify(b[key]));
}
