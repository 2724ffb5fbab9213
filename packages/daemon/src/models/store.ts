import type { modelRefSchema } from '@svc/protocol';
import type { z } from 'zod';
import type { Db } from '../store/db.ts';

export type CredentialProvider = 'anthropic' | 'openai' | 'openai-compatible';

export interface CredentialRow {
  provider: CredentialProvider;
  /** The secret: read only to call the provider or launch a broker, never answered. */
  api_key: string | null;
  base_url: string | null;
  checked_at: string | null;
  check_error: string | null;
  created_at: string;
  updated_at: string;
}

/** A model as a configuration names it: a provider and a model. */
export type ModelRef = z.output<typeof modelRefSchema>;

/** The one model configuration row, its JSON columns parsed. */
export interface ModelConfigRow {
  /** The configured default model, `null` when none is set. */
  default_model: ModelRef | null;
  /** The owner's model of each profile by its name. */
  profiles: Record<string, ModelRef>;
  updated_at: string;
}

/** The row as stored: its JSON columns as text. */
interface StoredConfigRow {
  default_model: string | null;
  profiles: string;
  updated_at: string;
}

/** Model credentials and the one model configuration row; prepared once per connection. */
export function modelStore(db: Db) {
  const q = {
    credentials: db.sqlite.prepare('SELECT * FROM model_credentials ORDER BY provider'),
    credential: db.sqlite.prepare('SELECT * FROM model_credentials WHERE provider = ?'),
    upsert: db.sqlite.prepare(
      `INSERT INTO model_credentials (provider, api_key, base_url, created_at, updated_at)
       VALUES (:provider, :api_key, :base_url, :at, :at)
       ON CONFLICT (provider) DO UPDATE SET api_key = excluded.api_key,
         base_url = excluded.base_url, checked_at = NULL, check_error = NULL,
         updated_at = excluded.updated_at`,
    ),
    remove: db.sqlite.prepare('DELETE FROM model_credentials WHERE provider = ?'),
    check: db.sqlite.prepare(
      'UPDATE model_credentials SET checked_at = ?, check_error = ? WHERE provider = ?',
    ),
    config: db.sqlite.prepare('SELECT * FROM model_config WHERE id = 1'),
    setConfig: db.sqlite.prepare(
      `INSERT INTO model_config (id, default_model, profiles, updated_at) VALUES (1, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET default_model = excluded.default_model,
         profiles = excluded.profiles, updated_at = excluded.updated_at`,
    ),
  };
  return {
    credentials(): CredentialRow[] {
      return q.credentials.all() as unknown as CredentialRow[];
    },
    credential(provider: string): CredentialRow | undefined {
      return q.credential.get(provider) as CredentialRow | undefined;
    },
    /** Stores or replaces; a replaced credential has not been checked yet. */
    upsertCredential(row: {
      provider: CredentialProvider;
      api_key: string | null;
      base_url: string | null;
      at: string;
    }): void {
      q.upsert.run({ ...row });
    },
    removeCredential(provider: string): boolean {
      return q.remove.run(provider).changes > 0;
    },
    /** What the last call with these credentials said: `error` null = accepted. */
    recordCheck(provider: string, at: string, error: string | null): void {
      q.check.run(at, error, provider);
    },
    config(): ModelConfigRow | undefined {
      const row = q.config.get() as StoredConfigRow | undefined;
      if (row === undefined) return undefined;
      return {
        default_model:
          row.default_model === null ? null : (JSON.parse(row.default_model) as ModelRef),
        profiles: JSON.parse(row.profiles) as Record<string, ModelRef>,
        updated_at: row.updated_at,
      };
    },
    setConfig(row: ModelConfigRow): void {
      const defaultModel = row.default_model === null ? null : JSON.stringify(row.default_model);
      q.setConfig.run(defaultModel, JSON.stringify(row.profiles), row.updated_at);
    },
  };
}

export type ModelStore = ReturnType<typeof modelStore>;
