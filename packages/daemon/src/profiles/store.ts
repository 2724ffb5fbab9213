import type { Budgets, modelChoiceSchema, NetworkPolicy, profileSchema } from '@svc/protocol';
import type { z } from 'zod';
import type { Db } from '../store/db.ts';

/** A profile's row, its JSON columns parsed. */
export interface ProfileRow {
  name: string;
  description: string | null;
  /** `{provider, model, script?}`; `null` = the configured default. */
  model: ModelChoice | null;
  system_prompt: string | null;
  /** `null` = every tool the scopes allow. */
  tools: string[] | null;
  /** `null` = inherit the creator's. */
  scopes: string[] | null;
  budgets: Budgets;
  /** Its nodes' default git workspace; `null` = plain directories. */
  workspace: ProfileWorkspace | null;
  /** Its nodes' sandbox network; `null` = the daemon's default. */
  network: NetworkPolicy | null;
  /** The env-store names its nodes' commands get; `null` = none. */
  command_env: string[] | null;
  app_id: string | null;
  created_at: string;
  updated_at: string;
}

/** A model as a profile names it: a provider and model, plus a script for `scripted`. */
export type ModelChoice = z.output<typeof modelChoiceSchema>;
export type ProfileWorkspace = NonNullable<z.output<typeof profileSchema>['workspace']>;

/** The row as stored: JSON text in its JSON columns; `network` is `none`, `host` or JSON. */
type StoredRow = Omit<
  ProfileRow,
  'model' | 'tools' | 'scopes' | 'budgets' | 'workspace' | 'network' | 'command_env'
> & {
  model: string | null;
  tools: string | null;
  scopes: string | null;
  budgets: string;
  workspace: string | null;
  network: string | null;
  command_env: string | null;
};

function parsed(row: StoredRow): ProfileRow {
  return {
    ...row,
    model: parse<ModelChoice>(row.model),
    tools: parse<string[]>(row.tools),
    scopes: parse<string[]>(row.scopes),
    budgets: JSON.parse(row.budgets) as Budgets,
    workspace: parse<ProfileWorkspace>(row.workspace),
    network:
      row.network === null || !row.network.startsWith('{')
        ? (row.network as NetworkPolicy | null)
        : (JSON.parse(row.network) as NetworkPolicy),
    command_env: parse<string[]>(row.command_env),
  };
}

function stored(row: ProfileRow): StoredRow {
  return {
    ...row,
    model: json(row.model),
    tools: json(row.tools),
    scopes: json(row.scopes),
    budgets: JSON.stringify(row.budgets),
    workspace: json(row.workspace),
    network:
      row.network === null || typeof row.network === 'string'
        ? row.network
        : JSON.stringify(row.network),
    command_env: json(row.command_env),
  };
}

function parse<T>(text: string | null): T | null {
  return text === null ? null : (JSON.parse(text) as T);
}

function json(value: unknown): string | null {
  return value === null ? null : JSON.stringify(value);
}

export interface EnvNameRow {
  name: string;
  updated_at: string;
}

/** Profiles and their env stores; prepared once per connection. */
export function profileStore(db: Db) {
  const q = {
    get: db.sqlite.prepare('SELECT * FROM profiles WHERE name = ?'),
    list: db.sqlite.prepare(
      `SELECT * FROM profiles WHERE name > :after AND (:all OR app_id IS NULL OR app_id = :app)
       ORDER BY name LIMIT :limit`,
    ),
    upsert: db.sqlite.prepare(
      `INSERT INTO profiles (name, description, model, system_prompt, tools, scopes, budgets,
         workspace, network, command_env, app_id, created_at, updated_at)
       VALUES (:name, :description, :model, :system_prompt, :tools, :scopes, :budgets, :workspace,
         :network, :command_env, :app_id, :created_at, :updated_at)
       ON CONFLICT (name) DO UPDATE SET description = excluded.description,
         model = excluded.model, system_prompt = excluded.system_prompt, tools = excluded.tools,
         scopes = excluded.scopes, budgets = excluded.budgets, workspace = excluded.workspace,
         network = excluded.network, command_env = excluded.command_env,
         updated_at = excluded.updated_at`,
    ),
    envNames: db.sqlite.prepare(
      'SELECT name, updated_at FROM profile_env WHERE profile = ? ORDER BY name',
    ),
    envValues: db.sqlite.prepare('SELECT name, value FROM profile_env WHERE profile = ?'),
    setEnv: db.sqlite.prepare(
      `INSERT INTO profile_env (profile, name, value, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (profile, name) DO UPDATE SET value = excluded.value,
         updated_at = excluded.updated_at`,
    ),
    deleteEnv: db.sqlite.prepare('DELETE FROM profile_env WHERE profile = ? AND name = ?'),
    touch: db.sqlite.prepare('UPDATE profiles SET updated_at = ? WHERE name = ?'),
  };
  return {
    get(name: string): ProfileRow | undefined {
      const row = q.get.get(name) as StoredRow | undefined;
      return row === undefined ? undefined : parsed(row);
    },
    /** By name after `after`; `app` sees the owner's and its own, `app: null` sees all. */
    list(after: string, limit: number, app: string | null): ProfileRow[] {
      const rows = q.list.all({
        after,
        all: app === null ? 1 : 0,
        app,
        limit,
      }) as unknown as StoredRow[];
      return rows.map(parsed);
    },
    /** Inserts, or updates every field but `app_id` and `created_at`. */
    upsert(row: ProfileRow): void {
      q.upsert.run({ ...stored(row) });
    },
    envNames(profile: string): EnvNameRow[] {
      return q.envNames.all(profile) as unknown as EnvNameRow[];
    },
    /** The values, for a broker's environment only. */
    envValues(profile: string): Record<string, string> {
      const rows = q.envValues.all(profile) as unknown as { name: string; value: string }[];
      return Object.fromEntries(rows.map((r) => [r.name, r.value]));
    },
    setEnv(profile: string, name: string, value: string, at: string): void {
      q.setEnv.run(profile, name, value, at);
      q.touch.run(at, profile);
    },
    deleteEnv(profile: string, name: string, at: string): boolean {
      const removed = q.deleteEnv.run(profile, name).changes > 0;
      if (removed) q.touch.run(at, profile);
      return removed;
    },
  };
}

export type ProfileStore = ReturnType<typeof profileStore>;
