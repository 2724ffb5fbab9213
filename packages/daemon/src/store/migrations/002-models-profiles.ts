/** Model credentials, model configuration, profiles and their env stores. */
export const sql = `
CREATE TABLE model_credentials (
  provider    TEXT PRIMARY KEY CHECK (provider IN ('anthropic', 'openai', 'openai-compatible')),
  api_key     TEXT,                          -- a secret at rest: never answered, logged or put in an event
  base_url    TEXT,                          -- NULL = the provider's public API
  checked_at  TEXT,                          -- the last model call that used these credentials
  check_error TEXT,                          -- why that call was refused (401/403), NULL when it was accepted
  created_at  TEXT NOT NULL,
  updated_at  TEXT NOT NULL
);

CREATE TABLE model_config (
  id            INTEGER PRIMARY KEY CHECK (id = 1),  -- one row
  default_model TEXT CHECK (default_model IS NULL OR json_valid(default_model)),  -- {provider, model}
  profiles      TEXT NOT NULL CHECK (json_valid(profiles)),  -- {profile name: {provider, model}}
  updated_at    TEXT NOT NULL
);

CREATE TABLE profiles (
  name          TEXT PRIMARY KEY,
  description   TEXT,
  model         TEXT CHECK (model IS NULL OR json_valid(model)),  -- {provider, model, script?}
  system_prompt TEXT,
  tools         TEXT CHECK (tools IS NULL OR json_valid(tools)),
  scopes        TEXT CHECK (scopes IS NULL OR json_valid(scopes)),
  budgets       TEXT NOT NULL CHECK (json_valid(budgets)),
  app_id        TEXT,                          -- the creating app; NULL = the owner
  created_at    TEXT NOT NULL,
  updated_at    TEXT NOT NULL
);

-- Every node names a profile, 'default' unless told otherwise, so that one always exists.
INSERT INTO profiles (name, budgets, created_at, updated_at) VALUES (
  'default',
  '{"max_turns":100,"max_tokens":null,"max_cost_usd":null}',
  strftime('%Y-%m-%dT%H:%M:%fZ', 'now'),
  strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
);

CREATE TABLE profile_env (
  profile    TEXT NOT NULL REFERENCES profiles (name) ON DELETE CASCADE,
  name       TEXT NOT NULL,
  value      TEXT NOT NULL,                  -- a secret at rest: only brokers receive it
  updated_at TEXT NOT NULL,
  PRIMARY KEY (profile, name)
);
`;
