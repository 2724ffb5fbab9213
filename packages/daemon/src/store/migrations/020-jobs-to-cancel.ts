/**
 * A directive's `cancel_jobs` is read on every turn and tool result a broker records: without
 * this index the read walks all of the node's jobs (`jobs_node`), so a long-lived node's records
 * grew dearer with each bash call it had made. Only running jobs somebody asked to stop are in it.
 */
export const sql = `
CREATE INDEX jobs_to_cancel ON jobs (node_id, id)
  WHERE state = 'running' AND cancel_requested_at IS NOT NULL;
`;
