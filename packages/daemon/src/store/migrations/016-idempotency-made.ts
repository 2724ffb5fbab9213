/**
 * What a request made before holding its answer open (`nodes.createAndWait`, `nodes.parse`,
 * `runs.parse`), recorded under its Idempotency-Key in the same transaction: a claim with one
 * survives a restart, so the client's retry waits on that node or run again instead of making a
 * second one (http/idempotency.ts, `madeOnce`).
 */
export const sql = `
ALTER TABLE idempotency_keys ADD COLUMN made TEXT;
`;
