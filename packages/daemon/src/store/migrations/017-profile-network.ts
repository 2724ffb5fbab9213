/**
 * A profile's network for its nodes' sandboxed commands (docs/security.md, "The sandbox"):
 * `none` or `host`; NULL, the daemon's default (`SVC_HOME/sandbox.json`, else none).
 */
export const sql = `
ALTER TABLE profiles ADD COLUMN network TEXT;
`;
