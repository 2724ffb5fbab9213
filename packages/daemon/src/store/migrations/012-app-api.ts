/**
 * The application-facing API (docs/api-v1.md "Uploads and attachments", "Shares", "Questions"):
 * uploads (their bytes are files under `SVC_HOME/uploads/`), shares of host paths with apps,
 * questions (an app's handle on a human request a node of its run asked), and the daemon's
 * signing secrets (the HMAC key of attachment links).
 */
export const sql = `
CREATE TABLE uploads (
  id          TEXT PRIMARY KEY,
  filename    TEXT NOT NULL,
  media_type  TEXT NOT NULL,
  size        INTEGER NOT NULL CHECK (size >= 0),
  sha256      TEXT NOT NULL,
  app_id      TEXT,                       -- the uploading app; NULL = the owner
  created_at  TEXT NOT NULL
);
CREATE INDEX uploads_app ON uploads (app_id, id);

CREATE TABLE shares (
  id          TEXT PRIMARY KEY,
  app_id      TEXT NOT NULL,              -- the app the path is shared with
  path        TEXT NOT NULL,              -- normalized as a files scope's directory
  mode        TEXT NOT NULL CHECK (mode IN ('read', 'rw')),
  created_by  TEXT,                       -- the app that made it; NULL = the owner
  created_at  TEXT NOT NULL,
  expires_at  TEXT                        -- NULL = never
);
CREATE INDEX shares_app ON shares (app_id, expires_at);

CREATE TABLE questions (
  id          TEXT PRIMARY KEY,
  request_id  TEXT NOT NULL UNIQUE,       -- the human request; no foreign key, as for node_id there
  run_id      TEXT NOT NULL,
  node_id     TEXT NOT NULL,
  app_id      TEXT,                       -- the run's app; NULL = the owner's run
  created_at  TEXT NOT NULL
);

CREATE TABLE daemon_secrets (
  name        TEXT PRIMARY KEY,
  value       BLOB NOT NULL,
  created_at  TEXT NOT NULL
);
`;
