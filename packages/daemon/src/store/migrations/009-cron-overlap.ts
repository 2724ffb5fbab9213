/**
 * A cron's `overlap` (docs/api-v1.md "Crons"): whether a scheduled time fires while the node of
 * the last fire is still live. `skip` by default, so a frequent schedule cannot pile up nodes.
 */
export const sql = `
ALTER TABLE crons ADD COLUMN overlap TEXT NOT NULL DEFAULT 'skip' CHECK (overlap IN ('skip', 'allow'));
`;
