import type { NetworkPolicy } from '@svc/protocol';
import {
  type Budgets,
  DEFAULT_BUDGETS,
  mergeBudgets,
  type profileEnsureBodySchema,
  type profileSchema,
} from '@svc/protocol';
import type { z } from 'zod';
import { ApiError } from '../errors.ts';
import type { ModelChoice } from '../models/types.ts';
import type { Principal } from '../ports.ts';
import type { EventLog } from '../services/events.ts';
import { checkScopes } from '../services/scopes.ts';
import type { Store } from '../store/index.ts';
import type { ProfileRow } from './store.ts';

export type Profile = z.output<typeof profileSchema>;
type EnsureBody = z.output<typeof profileEnsureBodySchema>;

/** A profile as nodes and model calls use it: the full model choice, script included. */
export interface ProfileSettings {
  name: string;
  model: ModelChoice | null;
  system_prompt: string | null;
  tools: string[] | null;
  scopes: string[] | null;
  budgets: Budgets;
  /** Its nodes' default git workspace, checked at each create; `null`: plain directories. */
  workspace: ProfileWorkspace | null;
  /** Its nodes' sandbox network; `null` = the daemon's default. */
  network: NetworkPolicy | null;
  /** Names from its env store its nodes' sandboxed commands get in their environment. */
  command_env: string[];
  app_id: string | null;
}

export type ProfileWorkspace = NonNullable<Profile['workspace']>;

/**
 * Whose profiles a caller sees: the owner (and the owner's nodes) every one; an app, and the
 * nodes of its runs, the owner's and its own. Others answer 404, as if they did not exist.
 */
function actorOf(principal: Principal): string | null {
  return principal.kind === 'owner' ? null : principal.appId;
}

function visible(row: ProfileRow, actor: string | null): boolean {
  return actor === null || row.app_id === null || row.app_id === actor;
}

/**
 * Profiles and their env stores. An env value goes in through `setEnv` and out only through
 * `envValues` (a broker's launch): no answer, event or log line carries one.
 */
export function profileService(store: Store, events: EventLog) {
  function row(name: string, principal: Principal | null, field = 'name'): ProfileRow {
    const found = store.profiles.get(name);
    if (found === undefined || (principal !== null && !visible(found, actorOf(principal)))) {
      throw new ApiError('not_found', `no profile '${name}'`, { field });
    }
    return found;
  }

  function toSettings(r: ProfileRow): ProfileSettings {
    return {
      name: r.name,
      model: parse<ModelChoice>(r.model),
      system_prompt: r.system_prompt,
      tools: parse<string[]>(r.tools),
      scopes: parse<string[]>(r.scopes),
      budgets: JSON.parse(r.budgets) as Budgets,
      workspace: parse<ProfileWorkspace>(r.workspace),
      network: networkFrom(r.network),
      command_env: parse<string[]>(r.command_env) ?? [],
      app_id: r.app_id,
    };
  }

  function toDto(r: ProfileRow): Profile {
    const model = parse<ModelChoice>(r.model);
    return {
      name: r.name,
      description: r.description,
      model: model === null ? null : { provider: model.provider, model: model.model },
      scripted_turns: model?.script?.length ?? null,
      system_prompt: r.system_prompt,
      tools: parse<string[]>(r.tools),
      scopes: parse<string[]>(r.scopes),
      budgets: JSON.parse(r.budgets) as Budgets,
      workspace: parse<ProfileWorkspace>(r.workspace),
      network: networkFrom(r.network),
      command_env: parse<string[]>(r.command_env) ?? [],
      env: store.profiles.envNames(r.name),
      app_id: r.app_id,
      created_at: r.created_at,
      updated_at: r.updated_at,
    };
  }

  return {
    /**
     * `PUT /v1/profiles/{name}`: creates, or sets the fields given (`null` = back to the
     * default). A body that changes nothing writes nothing, so repeating it is a no-op.
     */
    ensure(name: string, body: EnsureBody, principal: Principal): Profile {
      const actor = actorOf(principal);
      return store.db.transaction(() => {
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
          model: pick(json(body.model), current?.model ?? null),
          system_prompt: pick(body.system_prompt, current?.system_prompt ?? null),
          tools: pick(json(body.tools), current?.tools ?? null),
          scopes: pick(
            json(body.scopes && checkScopes(body.scopes, principal.scopes)),
            current?.scopes ?? null,
          ),
          budgets: JSON.stringify(
            mergeBudgets(
              current === undefined ? DEFAULT_BUDGETS : (JSON.parse(current.budgets) as Budgets),
              body.budgets,
            ),
          ),
          // Only its shape here: whether a creator may work in it is asked at each node's create.
          workspace: pick(
            json(
              body.workspace && { repo: body.workspace.repo, base: body.workspace.base ?? null },
            ),
            current?.workspace ?? null,
          ),
          network: pick(networkText(networkOf(body.network, principal)), current?.network ?? null),
          command_env: pick(json(body.command_env), current?.command_env ?? null),
          app_id: current === undefined ? actor : current.app_id,
          created_at: current?.created_at ?? now,
          updated_at: now,
        };
        if (current !== undefined && sameSettings(current, next)) return toDto(current);
        store.profiles.upsert(next);
        const dto = toDto(store.profiles.get(name)!);
        events.record(current === undefined ? 'profile.created' : 'profile.updated', name, {
          profile: dto,
        });
        return dto;
      });
    },

    retrieve(name: string, principal: Principal): Profile {
      return toDto(row(name, principal));
    },

    list(
      after: string,
      limit: number,
      principal: Principal,
    ): { data: Profile[]; hasMore: boolean } {
      const rows = store.profiles.list(after, limit + 1, actorOf(principal));
      return { data: rows.slice(0, limit).map(toDto), hasMore: rows.length > limit };
    },

    /** Stores an env value (owner only, checked by the route); answers the names only. */
    setEnv(name: string, variable: string, value: string): Profile {
      return store.db.transaction(() => {
        row(name, null);
        store.profiles.setEnv(name, variable, value, new Date().toISOString());
        events.record('profile.env.set', name, { profile: name, name: variable });
        return toDto(row(name, null));
      });
    },

    deleteEnv(name: string, variable: string): Profile {
      return store.db.transaction(() => {
        row(name, null);
        if (!store.profiles.deleteEnv(name, variable, new Date().toISOString())) {
          throw new ApiError('not_found', `profile '${name}' has no env variable ${variable}`, {
            field: 'var',
          });
        }
        events.record('profile.env.deleted', name, { profile: name, name: variable });
        return toDto(row(name, null));
      });
    },

    /**
     * The settings nodes and model calls use, script included; 404 naming `field` when
     * `principal` may not see it (`null`: the daemon itself).
     */
    settings(name: string, principal: Principal | null, field = 'profile'): ProfileSettings {
      return toSettings(row(name, principal, field));
    },

    /** The daemon's own read of a node's profile: `null` once it was removed, which cuts nothing. */
    find(name: string): ProfileSettings | null {
      const r = store.profiles.get(name);
      return r === undefined ? null : toSettings(r);
    },

    /** The env values, for a broker's launch message only. */
    envValues(name: string): Record<string, string> {
      return store.profiles.envValues(name);
    },
  };
}

export type ProfileService = ReturnType<typeof profileService>;

function json(value: unknown): string | null | undefined {
  return value === undefined || value === null
    ? (value as null | undefined)
    : JSON.stringify(value);
}

function parse<T>(text: string | null): T | null {
  return text === null ? null : (JSON.parse(text) as T);
}

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
 * A profile's network, as its setter may grant it: `host` reaches every service on the machine
 * and beyond, which only the person (the owner's token) hands out; anyone may ask for `none`.
 */
function networkOf(
  network: NetworkPolicy | null | undefined,
  principal: Principal,
): NetworkPolicy | null | undefined {
  if (network != null && network !== 'none' && principal.scopes !== null) {
    throw new ApiError(
      'forbidden',
      "only the owner may give a profile's nodes a network (the host's, or a list of domains)",
      { field: 'network' },
    );
  }
  return network;
}

/** Stored as `none`, `host`, or the `{allow}` object's JSON. */
function networkText(network: NetworkPolicy | null | undefined): string | null | undefined {
  return network == null || typeof network === 'string' ? network : JSON.stringify(network);
}

function networkFrom(text: string | null): NetworkPolicy | null {
  if (text === null) return null;
  return text.startsWith('{') ? (JSON.parse(text) as NetworkPolicy) : (text as NetworkPolicy);
}

function sameSettings(a: ProfileRow, b: ProfileRow): boolean {
  return SETTINGS.every((key) => a[key] === b[key]);
}
