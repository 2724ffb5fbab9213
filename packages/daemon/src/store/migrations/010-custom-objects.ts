/**
 * Custom objects and their deliveries (docs/api-v1.md "Custom objects"). A delivery is the
 * `object.event` row of the event log (`seq`) plus its state; the event row holds the data, so
 * what a receiver gets is the log's own record. `next_attempt_at` drives the url and argv
 * receivers' retries: due at that time, NULL while an attempt is in flight (a start after a crash
 * makes those due again) and always NULL for a queue, which is read, not pushed.
 */
export const sql = `
CREATE TABLE custom_objects (
  id             TEXT PRIMARY KEY,
  name           TEXT NOT NULL,
  description    TEXT,
  events         TEXT NOT NULL CHECK (json_valid(events)),    -- name -> {description, schema}
  receiver       TEXT NOT NULL CHECK (json_valid(receiver)),
  receiver_kind  TEXT NOT NULL CHECK (receiver_kind IN ('queue', 'url', 'argv')),
  publish_hash   BLOB NOT NULL UNIQUE,                        -- SHA-256 of the publish token
  signing_secret TEXT,                                        -- url receivers: the HMAC key, needed to sign
  app_id         TEXT,                                        -- the owning app; NULL = the owner
  created_at     TEXT NOT NULL
);
CREATE INDEX custom_objects_app ON custom_objects (app_id, id);

CREATE TABLE object_deliveries (
  id              TEXT PRIMARY KEY,
  object_id       TEXT NOT NULL REFERENCES custom_objects (id) ON DELETE CASCADE,
  seq             INTEGER NOT NULL UNIQUE,                    -- the object.event in events
  state           TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'failed')),
  attempts        INTEGER NOT NULL DEFAULT 0,
  next_attempt_at TEXT,
  last_error      TEXT,
  created_at      TEXT NOT NULL,
  updated_at      TEXT NOT NULL
);
CREATE INDEX object_deliveries_object ON object_deliveries (object_id, state, seq);
CREATE INDEX object_deliveries_due ON object_deliveries (state, next_attempt_at);
`;
