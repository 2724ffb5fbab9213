/** The plugin registry: what each installed plugin's archive declared, and where it lives. */
export const sql = `
CREATE TABLE plugins (
  name         TEXT PRIMARY KEY,
  description  TEXT NOT NULL,
  endpoint     TEXT NOT NULL,                 -- as given to the installer
  origin       TEXT NOT NULL,                 -- the transport: the endpoint's origin only
  major        INTEGER,                       -- NULL = unversioned
  supported    TEXT CHECK (supported IS NULL OR json_valid(supported)),
  auth         TEXT NOT NULL CHECK (auth IN ('none', 'token', 'directory')),
  auth_env     TEXT,                          -- a variable name of the profile env store, never a value
  groups_json  TEXT NOT NULL CHECK (json_valid(groups_json)),  -- not "groups": GROUPS is an SQL keyword (window frames)
  commands     TEXT NOT NULL CHECK (json_valid(commands)),
  etag         TEXT,
  installed_at TEXT NOT NULL,
  updated_at   TEXT NOT NULL
);
`;
