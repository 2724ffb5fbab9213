/**
 * Installed plugins. Rows come back parsed, as the protocol's `Plugin`: the JSON columns
 * (`supported`, `groups_json`, `commands`) are written and read here and nowhere else.
 */
import type { Plugin } from '@svc/protocol';
import type { Db } from '../store/db.ts';
import { fromJson, toJson } from '../store/json.ts';

/** An installed plugin: the row is the API's `Plugin` (nothing of it is private). */
export type PluginRow = Plugin;

/** A row as SQLite answers it. */
interface StoredRow extends Omit<PluginRow, 'supported' | 'groups' | 'commands'> {
  /** JSON array of majors; `null` = unversioned. */
  supported: string | null;
  /** JSON `[{name, description, scope}]`. */
  groups_json: string;
  /** JSON `[{group, name, description, scope, streaming, method, path, input}]`. */
  commands: string;
}

function parsed({ supported, groups_json, commands, ...columns }: StoredRow): PluginRow {
  return {
    ...columns,
    supported: fromJson<number[]>(supported),
    groups: JSON.parse(groups_json) as PluginRow['groups'],
    commands: JSON.parse(commands) as PluginRow['commands'],
  };
}

function stored({ supported, groups, commands, ...columns }: PluginRow): StoredRow {
  return {
    ...columns,
    supported: toJson(supported),
    groups_json: JSON.stringify(groups),
    commands: JSON.stringify(commands),
  };
}

/** Installed plugins; prepared once per connection. */
export function pluginStore(db: Db) {
  const q = {
    get: db.sqlite.prepare('SELECT * FROM plugins WHERE name = ?'),
    list: db.sqlite.prepare('SELECT * FROM plugins WHERE name > ? ORDER BY name LIMIT ?'),
    all: db.sqlite.prepare('SELECT * FROM plugins ORDER BY name'),
    upsert: db.sqlite.prepare(
      `INSERT INTO plugins (name, description, endpoint, origin, major, supported, auth, auth_env,
         groups_json, commands, etag, installed_at, updated_at)
       VALUES (:name, :description, :endpoint, :origin, :major, :supported, :auth, :auth_env,
         :groups_json, :commands, :etag, :installed_at, :updated_at)
       ON CONFLICT (name) DO UPDATE SET description = excluded.description,
         endpoint = excluded.endpoint, origin = excluded.origin, major = excluded.major,
         supported = excluded.supported, auth = excluded.auth, auth_env = excluded.auth_env,
         groups_json = excluded.groups_json, commands = excluded.commands, etag = excluded.etag,
         updated_at = excluded.updated_at`,
    ),
    remove: db.sqlite.prepare('DELETE FROM plugins WHERE name = ?'),
  };
  return {
    get(name: string): PluginRow | undefined {
      const row = q.get.get(name) as StoredRow | undefined;
      return row === undefined ? undefined : parsed(row);
    },
    list(after: string, limit: number): PluginRow[] {
      return (q.list.all(after, limit) as unknown as StoredRow[]).map(parsed);
    },
    /** Every installed plugin: what a broker's claim offers from (a person installs a few). */
    all(): PluginRow[] {
      return (q.all.all() as unknown as StoredRow[]).map(parsed);
    },
    /** Inserts, or replaces every field but `installed_at`. */
    upsert(row: PluginRow): void {
      q.upsert.run({ ...stored(row) });
    },
    remove(name: string): void {
      q.remove.run(name);
    },
  };
}

export type PluginStore = ReturnType<typeof pluginStore>;
