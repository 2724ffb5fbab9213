/**
 * Focuses (docs/api-v1.md "Focuses"): the terminal-multiplexer pane showing a node, for the
 * viewer. One row per node; it goes with its node (`ON DELETE CASCADE`, as everything hanging on
 * a node does when `removeTree` deletes the tree's rows).
 */
export const sql = `
CREATE TABLE focuses (
  node_id    TEXT PRIMARY KEY REFERENCES nodes (id) ON DELETE CASCADE,
  pane       TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX focuses_pane ON focuses (pane, node_id);
`;
