/**
 * A node's own network for its sandboxed commands, given at create (docs/security.md, "The
 * sandbox"): `none`, `host` or an `{allow}` object's JSON; NULL, its profile's (then the
 * daemon's default).
 */
export const sql = `
ALTER TABLE nodes ADD COLUMN network TEXT;
`;
