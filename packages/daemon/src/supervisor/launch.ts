/**
 * A queued node's launch (see supervisor.ts): its worktree, its node token, and a broker handed
 * its launch message.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { NodeRow, Workspace } from '../nodes/store/nodes.ts';
import type { BrokerLaunch } from '../ports.ts';
import { addGitWorktree } from '../worktrees/git-worktree.ts';
import { worktreePath } from '../worktrees/worktrees.ts';
import { brokerEnded } from './broker-ended.ts';
import type { BrokerProcess } from './broker-process.ts';
import { pidWindow } from './process-tree.ts';
import { launched, takeBroker, warmUp } from './spares.ts';
import type { Active, SupervisorState } from './supervisor-state.ts';
import { viewerSocketPath } from './viewers.ts';

/**
 * Starts `row`'s broker; a git node's worktree first, in the background (a checkout may take a
 * while), its slot held meanwhile. A node cancelled while git worked is not started.
 */
export function launch(state: SupervisorState, row: NodeRow): void {
  const { workspace } = row;
  if (workspace === null) {
    startBroker(state, row, null);
    return;
  }
  const { store, hooks, logger } = state.deps;
  const cwd = worktreePath(state.deps.home, row.id);
  state.preparing.add(row.id);
  addGitWorktree(workspace, cwd)
    .then(
      () => {
        state.preparing.delete(row.id);
        if (state.closed) return;
        const now = store.nodes.get(row.id);
        if (now?.state === 'queued' && !state.active.has(row.id)) {
          startBroker(state, now, workspace);
        }
      },
      (error: unknown) => {
        state.preparing.delete(row.id);
        if (!state.closed) hooks.unlaunchable(row.id, error, 'worktree_failed');
      },
    )
    .catch((error: unknown) => {
      logger.error({ err: error, node_id: row.id }, 'could not launch a git node');
    })
    .finally(state.schedule);
}

/** Mints the node's token and hands a broker its launch; its worktree is there (or made here). */
function startBroker(state: SupervisorState, row: NodeRow, workspace: Workspace | null): void {
  const { deps } = state;
  const { store, tokens, hooks, logger } = deps;
  // Before its plan is made: the sandbox binds the worktree that exists (by its realpath).
  const cwd = worktreePath(deps.home, row.id);
  if (workspace === null) {
    try {
      mkdirSync(cwd, { recursive: true, mode: 0o700 });
    } catch (error) {
      hooks.unlaunchable(row.id, error, 'worktree_failed');
      return;
    }
  }
  let parts: Pick<BrokerLaunch, 'model' | 'env' | 'sandbox'>;
  try {
    parts = hooks.launchOf(row);
  } catch (error) {
    hooks.unlaunchable(row.id, error);
    return;
  }
  const { scopes } = row;
  const viewerSocket = viewerSocketPath(state.viewers, row.id);
  warmUp(state);
  launched(state);
  let child: BrokerProcess;
  try {
    child = takeBroker(state, row.id);
  } catch (error) {
    hooks.crashed(row.id, `the broker could not start: ${(error as Error).message}`);
    return;
  }
  // Token and process in one transaction: one commit (an fsync) on the way to a first turn,
  // and both on record before the broker has the token to claim with.
  const { secret, dto } = store.db.transaction(() => {
    const minted = tokens.mintNode(row.id, row.app_id, scopes);
    store.brokers.insert(minted.dto.id, row.id, child.pid, new Date().toISOString());
    return minted;
  });
  // Before the host hears of the node: every process of its commands is forked after.
  const pids = pidWindow();
  try {
    child.launch(
      {
        node_id: row.id,
        token: secret,
        socket_path: deps.socketPath,
        home: deps.home,
        cwd,
        workspace,
        viewer_socket_path: viewerSocket,
        ...parts,
      },
      join(state.logs, `${row.id}.log`),
    );
  } catch (error) {
    const how = `launch failed: ${(error as Error).message}`;
    tokens.revoke(dto.id);
    store.brokers.end(dto.id, how, new Date().toISOString());
    // Never handed its node: nothing of it is worth keeping.
    void child.stop(0);
    hooks.crashed(row.id, `the broker could not start: ${(error as Error).message}`);
    return;
  }
  const broker: Active = {
    tokenId: dto.id,
    process: child,
    stopped: false,
    viewerSocket,
    pids,
    confined: parts.sandbox?.mode === 'on',
  };
  state.active.set(row.id, broker);
  logger.info({ node_id: row.id, pid: child.pid }, 'broker started');
  void child.exited.then((exit) => brokerEnded(state, row.id, broker, exit));
}
