/**
 * What a profile gives its nodes' sandboxed commands (docs/security.md, "The sandbox"): the
 * network (`none` or `host`; NULL, the daemon's default), and `command_env`, a JSON array of
 * names from its env store exported into their environment (NULL, none).
 */
export const sql = `
ALTER TABLE profiles ADD COLUMN network TEXT;
ALTER TABLE profiles ADD COLUMN command_env TEXT;
`;
