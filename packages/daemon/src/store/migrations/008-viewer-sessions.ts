/**
 * Web viewer sessions (docs/api-v1.md "Viewer"): what a one-time login link turns into, carried
 * by the `svc_viewer` cookie. Only the SHA-256 of the session secret is kept, as for tokens.
 */
export const sql = `
CREATE TABLE viewer_sessions (
  hash        BLOB PRIMARY KEY,
  created_at  TEXT NOT NULL,
  expires_at  TEXT NOT NULL,
  revoked_at  TEXT
);
CREATE INDEX viewer_sessions_expiry ON viewer_sessions (expires_at);
`;
