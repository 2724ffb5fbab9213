/**
 * Nodes, runs, turns, tool calls, mail, reports, jobs and the node-token binding (docs/nodes.md).
 * JSON columns hold the DTO's nested parts as they travel; everything a query filters or orders
 * by is a plain column.
 */
export const sql = `
CREATE TABLE nodes (
  id            TEXT PRIMARY KEY,
  parent_id     TEXT REFERENCES nodes (id) ON DELETE CASCADE,
  root_id       TEXT NOT NULL,
  run_id        TEXT,                          -- the run whose tree it is in; the run row refers back
  app_id        TEXT,                          -- creator app; NULL = the owner
  profile       TEXT NOT NULL,
  title         TEXT NOT NULL,
  task          TEXT NOT NULL,
  state         TEXT NOT NULL CHECK (state IN ('queued', 'running', 'waiting', 'done', 'failed', 'cancelled')),
  state_reason  TEXT,
  waiting_on    TEXT CHECK (waiting_on IS NULL OR json_valid(waiting_on)),
  scopes        TEXT CHECK (scopes IS NULL OR json_valid(scopes)),    -- NULL = the owner's: everything
  model         TEXT NOT NULL CHECK (json_valid(model)),              -- {provider, model, script?}
  budgets       TEXT NOT NULL CHECK (json_valid(budgets)),
  turns         INTEGER NOT NULL DEFAULT 0,    -- usage since create (or the last recycle)
  input_tokens  INTEGER NOT NULL DEFAULT 0,
  output_tokens INTEGER NOT NULL DEFAULT 0,
  cost_usd      REAL NOT NULL DEFAULT 0,
  outcome       TEXT CHECK (outcome IS NULL OR json_valid(outcome)),
  output_schema TEXT CHECK (output_schema IS NULL OR json_valid(output_schema)),
  metadata      TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(metadata)),
  created_at    TEXT NOT NULL,
  updated_at    TEXT NOT NULL,
  started_at    TEXT,
  finished_at   TEXT
);
CREATE INDEX nodes_parent ON nodes (parent_id);
CREATE INDEX nodes_root ON nodes (root_id);
CREATE INDEX nodes_run ON nodes (run_id);
CREATE INDEX nodes_state ON nodes (state, id);

CREATE TABLE runs (
  id         TEXT PRIMARY KEY,
  app_id     TEXT,                             -- NULL = the owner
  node_id    TEXT NOT NULL UNIQUE REFERENCES nodes (id) ON DELETE CASCADE,  -- the root
  title      TEXT NOT NULL,
  grant_scopes TEXT CHECK (grant_scopes IS NULL OR json_valid(grant_scopes)),  -- the app's grant at start: every node of the tree stays inside it
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX runs_app ON runs (app_id, id);

CREATE TABLE turns (
  node_id       TEXT NOT NULL REFERENCES nodes (id) ON DELETE CASCADE,
  idx           INTEGER NOT NULL CHECK (idx > 0),
  model         TEXT NOT NULL CHECK (json_valid(model)),
  input         TEXT NOT NULL CHECK (json_valid(input)),
  text          TEXT NOT NULL,
  input_tokens  INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL,
  cost_usd      REAL,                          -- NULL when the model has no known price
  finish_reason TEXT NOT NULL,
  started_at    TEXT NOT NULL,
  finished_at   TEXT NOT NULL,
  fingerprint   TEXT NOT NULL,                 -- SHA-256 of the record body: a retried record must match it
  UNIQUE (node_id, idx)
);

CREATE TABLE tool_calls (
  node_id     TEXT NOT NULL,
  id          TEXT NOT NULL,                   -- the model's call id (unique per node: a fork copies them)
  turn_idx    INTEGER NOT NULL,
  position    INTEGER NOT NULL,                -- order within its turn
  name        TEXT NOT NULL,
  input       TEXT CHECK (input IS NULL OR json_valid(input)),
  status      TEXT NOT NULL CHECK (status IN ('pending', 'ok', 'error')),
  output      TEXT CHECK (output IS NULL OR json_valid(output)),
  job_id      TEXT,
  finished_at TEXT,
  PRIMARY KEY (node_id, id),
  FOREIGN KEY (node_id, turn_idx) REFERENCES turns (node_id, idx) ON DELETE CASCADE
);
CREATE INDEX tool_calls_turn ON tool_calls (node_id, turn_idx, position);

CREATE TABLE mail (
  node_id         TEXT NOT NULL REFERENCES nodes (id) ON DELETE CASCADE,
  seq             INTEGER NOT NULL CHECK (seq > 0),
  from_kind       TEXT NOT NULL CHECK (from_kind IN ('owner', 'app', 'node')),
  from_id         TEXT,
  text            TEXT NOT NULL,
  created_at      TEXT NOT NULL,
  claimed_at      TEXT,                        -- set by a claim; a later broker claims it again until acknowledged
  acknowledged_at TEXT,                        -- in a recorded turn: never delivered again
  PRIMARY KEY (node_id, seq)
);
CREATE INDEX mail_unacknowledged ON mail (node_id, seq) WHERE acknowledged_at IS NULL;

CREATE TABLE reports (
  node_id    TEXT NOT NULL REFERENCES nodes (id) ON DELETE CASCADE,
  seq        INTEGER NOT NULL CHECK (seq > 0),
  text       TEXT NOT NULL,
  data       TEXT CHECK (data IS NULL OR json_valid(data)),
  created_at TEXT NOT NULL,
  PRIMARY KEY (node_id, seq)
);

CREATE TABLE jobs (
  id          TEXT PRIMARY KEY,
  node_id     TEXT NOT NULL REFERENCES nodes (id) ON DELETE CASCADE,
  kind        TEXT NOT NULL CHECK (kind IN ('bash', 'tool')),
  title       TEXT NOT NULL,
  state       TEXT NOT NULL CHECK (state IN ('running', 'done', 'failed', 'cancelled')),
  exit_code   INTEGER,
  started_at  TEXT NOT NULL,
  finished_at TEXT,
  cancel_requested_at TEXT                     -- nodes.jobs.cancel: the broker's next directive lists it
);
CREATE INDEX jobs_node ON jobs (node_id, id);

-- Node and run streams read the event log by subject.
CREATE INDEX events_subject_seq ON events (subject, seq);

-- Which node a node token (svc_node_…) acts for.
CREATE TABLE node_tokens (
  token_id TEXT PRIMARY KEY REFERENCES tokens (id),
  node_id  TEXT NOT NULL REFERENCES nodes (id) ON DELETE CASCADE
);
CREATE INDEX node_tokens_node ON node_tokens (node_id);
`;
