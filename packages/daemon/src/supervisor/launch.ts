/**
 * A queued node's launch (see supervisor.ts): its worktree, its node token, and a broker handed
 * its launch message.
 */
import { closeSync, open } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { NodeRow } from '../nodes/store/nodes.ts';
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
 * Starts `row`'s broker once its worktree is there (a git node's checkout may take a while) and
 * its log file is open, its slot held meanwhile; a node stopped meanwhile is not started. Both
 * are made on the thread pool, not the event loop: a directory and a file made cost the loop 1 to
 * 2 ms a node on a disk that churns (ext4 checks each free inode against recent deletions), which
 * every answer and event stream waited for.
 */
export function launch(state: SupervisorState, row: NodeRow): void {
  const { store, hooks, logger } = state.deps;
  state.preparing.add(row.id);
  prepare(state, row)
    .then((prepared) => {
      state.preparing.delete(row.id);
      if ('failed' in prepared) {
        if (state.closed) return;
        const { failed, error } = prepared;
        if (failed === 'worktree') hooks.unlaunchable(row.id, error, 'worktree_failed');
        else hooks.crashed(row.id, `the broker could not start: ${(error as Error).message}`);
        return;
      }
      const now = state.closed ? undefined : store.nodes.get(row.id);
      if (now?.state === 'queued' && !state.active.has(row.id)) {
        startBroker(state, now, prepared.logFd);
      } else {
        closeSync(prepared.logFd);
      }
    })
    .catch((error: unknown) => {
      logger.error({ err: error, node_id: row.id }, 'could not launch a node');
    })
    .finally(state.schedule);
}

const openFile = promisify(open);

/**
 * The node's worktree made, and its log file open for appending (0600): its descriptor, or
 * which of the two failed.
 */
async function prepare(
  state: SupervisorState,
  row: NodeRow,
): Promise<{ logFd: number } | { failed: 'worktree' | 'log'; error: unknown }> {
  const cwd = worktreePath(state.deps.home, row.id);
  try {
    // Before its plan is made: the sandbox binds the worktree that exists (by its realpath).
    if (row.workspace === null) await mkdir(cwd, { recursive: true, mode: 0o700 });
    else await addGitWorktree(state.deps.git, row.workspace, cwd);
  } catch (error) {
    return { failed: 'worktree', error };
  }
  try {
    // Opened before the launch, so a log that cannot be written fails it rather than losing output.
    return { logFd: await openFile(join(state.logs, `${row.id}.log`), 'a', 0o600) };
  } catch (error) {
    return { failed: 'log', error };
  }
}

/**
 * Mints the node's token and hands a broker its launch; its worktree is there and its log open
 * at `logFd`, which the broker takes over (closed here when none is launched).
 */
function startBroker(state: SupervisorState, row: NodeRow, logFd: number): void {
  const { deps } = state;
  const { store, tokens, hooks, logger } = deps;
  const { workspace } = row;
  const cwd = worktreePath(deps.home, row.id);
  let parts: Pick<BrokerLaunch, 'model' | 'env' | 'sandbox'>;
  try {
    parts = hooks.launchOf(row);
  } catch (error) {
    closeSync(logFd);
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
    closeSync(logFd);
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
      logFd,
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
