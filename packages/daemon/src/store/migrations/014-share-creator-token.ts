/**
 * The token that made a share (docs/api-v1.md "Shares"): a share an app made grants only while
 * that token lives (not revoked, not expired), so it never outlasts its creator's own access.
 * `NULL` for the owner's shares, which need no token to stay, and for an app's share made before
 * this migration, whose token is unknown: such a share grants nothing (the app makes it again).
 */
export const sql = `
ALTER TABLE shares ADD COLUMN creator_token_id TEXT;
`;
