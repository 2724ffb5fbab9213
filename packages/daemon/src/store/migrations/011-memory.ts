/**
 * Memory documents (docs/api-v1.md "Memory"): text at a path inside a space (`user`,
 * `app:<id>[:profile:<p>]`, `node:<id>`). `version` counts writes, for `if_version`.
 */
export const sql = `
CREATE TABLE memory_documents (
  space       TEXT NOT NULL,
  path        TEXT NOT NULL,
  title       TEXT NOT NULL,
  kind        TEXT NOT NULL CHECK (kind IN ('knowledge', 'preference')),
  privacy     TEXT NOT NULL CHECK (privacy IN ('public', 'friends', 'private')),
  media_type  TEXT,
  content     TEXT NOT NULL,
  size        INTEGER NOT NULL CHECK (size >= 0),   -- content in UTF-8 bytes
  version     INTEGER NOT NULL CHECK (version >= 1),
  created_at  TEXT NOT NULL,
  updated_at  TEXT NOT NULL,
  PRIMARY KEY (space, path)
);
`;
