/**
 * Git workspaces (docs/nodes.md "Workspaces"): a node's is recorded at create, as JSON
 * `{repo, git_common_dir, branch, base}` (its common git directory never read back from the
 * worktree, which the node can rewrite); a profile's is its nodes' default, JSON `{repo, base}`.
 * `NULL`: a plain-directory worktree.
 */
export const sql = `
ALTER TABLE nodes ADD COLUMN workspace TEXT CHECK (workspace IS NULL OR json_valid(workspace));
ALTER TABLE profiles ADD COLUMN workspace TEXT CHECK (workspace IS NULL OR json_valid(workspace));
`;
