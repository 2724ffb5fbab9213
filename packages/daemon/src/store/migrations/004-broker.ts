/**
 * What the supervisor keeps beyond the node tables: one row per broker process (its node token,
 * pid and how it ended), and each node's faults since its last new turn (the relaunch budget).
 */
export const sql = `
CREATE TABLE brokers (
  token_id   TEXT PRIMARY KEY REFERENCES tokens (id),  -- one node token per broker process
  node_id    TEXT NOT NULL,
  pid        INTEGER,
  started_at TEXT NOT NULL,
  claimed_at TEXT,
  ended_at   TEXT,
  exit       TEXT                           -- 'code 0', 'signal SIGKILL', 'lost' (the daemon restarted)
);
CREATE INDEX brokers_node ON brokers (node_id, started_at);
CREATE INDEX brokers_live ON brokers (ended_at) WHERE ended_at IS NULL;

CREATE TABLE broker_faults (
  node_id TEXT PRIMARY KEY,
  count   INTEGER NOT NULL                  -- crashes and non-fatal faults since the last new turn
);
`;
