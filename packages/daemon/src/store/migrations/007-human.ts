/**
 * Human requests and their inbox tickets (docs/api-v1.md "Human requests and the inbox"). The
 * request is the asker's handle and holds the answer; each ticket holds the content the person
 * saw. `ticket_id` is the current ticket; a replace supersedes it with a new one.
 */
export const sql = `
CREATE TABLE human_requests (
  id              TEXT PRIMARY KEY,
  ticket_id       TEXT NOT NULL,
  state           TEXT NOT NULL CHECK (state IN
                    ('open', 'in_progress', 'answered', 'dismissed', 'cancelled', 'expired')),
  response        TEXT CHECK (response IS NULL OR json_valid(response)),
  node_id         TEXT,                 -- the asking node; no foreign key: the request outlives it
  app_id          TEXT,                 -- the asking app (or the app of the asking node); NULL = owner
  expires_at      TEXT,
  created_at      TEXT NOT NULL,
  updated_at      TEXT NOT NULL
);
CREATE INDEX human_requests_expiry ON human_requests (expires_at) WHERE expires_at IS NOT NULL;
CREATE INDEX human_requests_node ON human_requests (node_id) WHERE node_id IS NOT NULL;

CREATE TABLE human_tickets (
  id              TEXT PRIMARY KEY,
  request_id      TEXT NOT NULL REFERENCES human_requests (id),
  kind            TEXT NOT NULL CHECK (kind IN ('question', 'approval', 'review')),
  title           TEXT NOT NULL,
  body            TEXT NOT NULL,
  options         TEXT NOT NULL CHECK (json_valid(options)),
  response_schema TEXT CHECK (response_schema IS NULL OR json_valid(response_schema)),
  state           TEXT NOT NULL CHECK (state IN ('open', 'in_progress', 'answered', 'dismissed',
                    'cancelled', 'superseded', 'expired')),
  progress_note   TEXT,
  created_at      TEXT NOT NULL,
  updated_at      TEXT NOT NULL
);
CREATE INDEX human_tickets_state ON human_tickets (state, id);
`;
