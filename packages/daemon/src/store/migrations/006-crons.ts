/**
 * Crons (docs/api-v1.md "Crons"). `next_run_at` is the claim: a fire updates it from the
 * scheduled time it fires for to the next one, guarded by the old value, in the transaction
 * that creates the node, so one scheduled time is fired at most once.
 */
export const sql = `
CREATE TABLE crons (
  id               TEXT PRIMARY KEY,
  name             TEXT NOT NULL,
  schedule         TEXT NOT NULL,
  timezone         TEXT NOT NULL,
  task             TEXT NOT NULL CHECK (json_valid(task)),  -- a root node's create body
  state            TEXT NOT NULL CHECK (state IN ('active', 'paused')),
  missed           TEXT NOT NULL CHECK (missed IN ('skip', 'run_once')),
  next_run_at      TEXT,                      -- NULL while paused, or when the schedule has no time left
  last_run_at      TEXT,
  last_node_id     TEXT,                      -- no foreign key: the node may be deleted, the cron stays
  fire_count       INTEGER NOT NULL DEFAULT 0,
  app_id           TEXT,                      -- the creating app; NULL = the owner
  creator_kind     TEXT NOT NULL CHECK (creator_kind IN ('owner', 'app')),
  creator_token_id TEXT NOT NULL,             -- rechecked at each fire: revoked or expired fires nothing
  created_at       TEXT NOT NULL,
  updated_at       TEXT NOT NULL
);
CREATE INDEX crons_due ON crons (state, next_run_at);
CREATE INDEX crons_app ON crons (app_id, id);
`;
