/** Tokens, the append-only event log and stored Idempotency-Key answers. */
export const sql = `
CREATE TABLE tokens (
  id           TEXT PRIMARY KEY,
  kind         TEXT NOT NULL CHECK (kind IN ('owner', 'app', 'node')),
  hash         BLOB NOT NULL UNIQUE,          -- SHA-256 of the secret; the secret itself is never stored
  app_id       TEXT,
  scopes       TEXT CHECK (scopes IS NULL OR json_valid(scopes)),  -- JSON array; NULL = everything (owner)
  created_at   TEXT NOT NULL,
  expires_at   TEXT,
  revoked_at   TEXT,
  last_used_at TEXT
);

CREATE TABLE events (
  seq        INTEGER PRIMARY KEY AUTOINCREMENT,  -- AUTOINCREMENT: a seq is never reused, even after the newest row is deleted
  kind       TEXT NOT NULL,
  subject    TEXT,
  payload    TEXT NOT NULL CHECK (json_valid(payload)),
  created_at TEXT NOT NULL
);
CREATE INDEX events_kind_seq ON events (kind, seq);

CREATE TABLE idempotency_keys (
  token_id     TEXT NOT NULL,
  key          TEXT NOT NULL,
  fingerprint  TEXT NOT NULL,                 -- method, path and SHA-256 of the body
  status       INTEGER,                       -- NULL while the first request is still running
  content_type TEXT,
  body         TEXT,
  created_at   INTEGER NOT NULL,              -- ms since the epoch; rows older than 24 h are ignored and purged
  PRIMARY KEY (token_id, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
`;
