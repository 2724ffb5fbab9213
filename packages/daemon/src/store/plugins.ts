import type { Db } from './db.ts';

export interface PluginRow {
  name: string;
  description: string;
  endpoint: string;
  origin: string;
  major: number | null;
  /** JSON array of majors; `null` = unversioned. */
  supported: string | null;
  auth: 'none' | 'token' | 'directory';
  auth_env: string | null;
  /** JSON `[{name, description, scope}]`. */
  groups_json: string;
  /** JSON `[{group, name, description, scope, streaming, method, path, input}]`. */
  commands: string;
  etag: string | null;
  installed_at: string;
  updated_at: string;
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
      return q.get.get(name) as PluginRow | undefined;
    },
    list(after: string, limit: number): PluginRow[] {
      return q.list.all(after, limit) as unknown as PluginRow[];
    },
    /** Every installed plugin: what a broker's claim offers from (a person installs a few). */
    all(): PluginRow[] {
      return q.all.all() as unknown as PluginRow[];
    },
    /** Inserts, or replaces every field but `installed_at`. */
    upsert(row: PluginRow): void {
      q.upsert.run({ ...row });
    },
    remove(name: string): void {
      q.remove.run(name);
    },
  };
}

export type PluginStore = ReturnType<typeof pluginStore>;
