/**
 * The supervisor: runs one broker process per active node, at most `concurrency` at a time.
 *
 * - A node is started when it is `queued` and a slot is free, oldest first: the supervisor mints
 *   a node token (the node's scopes and app, bound to the node), hands a broker process its
 *   launch message on stdin, and records the process (`brokers`). The broker itself takes the
 *   node (`broker.claim`: queued → running). First its worktree is made (or kept from an earlier
 *   launch): a plain directory, or a `git worktree` for a node with a workspace, made in the
 *   background while the node holds its slot, and named in the launch message (`workspace`) for
 *   the sandbox; a worktree git cannot make fails the node (`worktree_failed`).
 * - Warm spares: loading a broker's modules costs far more than the fork, so broker processes are
 *   started ahead of need (one per free slot, at least one) and wait, loaded, for a launch. A
 *   launch takes a spare and a replacement starts after it; spares are killed at close. They
 *   start with the first launch, so a daemon that runs no node starts no process for nothing.
 *   A daemon that launches nothing for `spareIdleMs` (30 s) keeps one spare until its next launch.
 *   From then on the default entry is also built into one ESM file (`./broker-bundle.ts`), which
 *   later brokers load in about half the CPU; the `.ts` entry serves until it is ready, or for
 *   good when esbuild is absent.
 * - When a broker exits its token is revoked. If its node is still `running` (or it died before
 *   claiming the node), that is a crash: the hooks record a fault and relaunch the node from its
 *   last recorded turn, or fail it once the relaunch budget is spent.
 * - `stop` (cancel, interrupt) ends a broker and every process it started within a second:
 *   SIGTERM to its group, SIGKILL to its whole tree after the grace period.
 * - At start, brokers the previous daemon left behind are killed and their tokens revoked, and
 *   nodes left `running` are relaunched (`recover`). At close, brokers are killed outright: the
 *   nodes stay `running` and the next start relaunches them, re-running only what no record holds.
 *   A spare the previous daemon left exits by itself: its stdin closes with that daemon.
 * - Viewers (`nodes.attach`): each launch names a unix socket under `<home>/run/viewers` (0700)
 *   where the broker, once it holds its node, streams its transcript
 *   (`../broker/viewer-socket.ts`); `viewerSocket` answers it while the node runs on that broker
 *   and the socket accepts a connection (`./socket-probe.ts`): never a path nobody listens on. A
 *   broker that dies without removing it has it removed here.
 */
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { socketPathProblem } from '@svc/protocol/home';
import type { Logger } from '../lifecycle/logger.ts';
import type { NodeRow, Workspace } from '../nodes/store/nodes.ts';
import { addGitWorktree } from '../worktrees/git-worktree.ts';
import { worktreePath } from '../worktrees/worktrees.ts';
import { sweepWrites, writeNotesDir } from '../nodes/workspace/write-notes.ts';
import type { BrokerLaunch, NodeRuntime, SupervisorHooks } from '../ports.ts';
import type { Store } from '../store/index.ts';
import type { TokenService } from '../tokens/service.ts';
import { brokerBundle } from './broker-bundle.ts';
import { type BrokerExit, type BrokerProcess, spawnBroker } from './broker-process.ts';
import { descendants, isAlive, marked, signalAll } from './process-tree.ts';
import { acceptsConnections } from './socket-probe.ts';

export const DEFAULT_CONCURRENCY = 4;

/**
 * A concurrency given as text (`--brokers`, `SVC_BROKERS`): a positive integer; `undefined` or
 * empty gives `undefined` (the default). Anything else is a `TypeError` naming `name`.
 */
export function parseConcurrency(text: string | undefined, name: string): number | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 1) {
    throw new TypeError(`${name} must be a positive integer; received ${JSON.stringify(text)}`);
  }
  return n;
}
/** SIGTERM → SIGKILL: with the kill itself, everything is gone well within a second. */
export const DEFAULT_GRACE_MS = 500;
/**
 * A spare holds about 100 MB: a burst of launches finds one per free slot, but a daemon that
 * launched nothing for this long keeps one (32 slots would otherwise hold 3 GB for nothing).
 */
export const DEFAULT_SPARE_IDLE_MS = 30_000;
const BROKER_ENTRY = fileURLToPath(new URL('../broker/main.ts', import.meta.url));

export interface SupervisorOptions {
  /** Brokers running at once; further queued nodes wait. Default 4. */
  concurrency?: number;
  /** SIGTERM → SIGKILL delay of `stop`. Default 500 ms. */
  graceMs?: number;
  /** The broker entry script, run as it is; default `src/broker/main.ts`, bundled when it can be. */
  entry?: string;
  /** No launch for this long: the spares but one are stopped. Default 30 s. */
  spareIdleMs?: number;
}

export interface SupervisorDeps {
  home: string;
  socketPath: string;
  store: Store;
  tokens: TokenService;
  logger: Logger;
  hooks: SupervisorHooks;
  /** A broker process is gone: what it left of its commands' control groups goes too. */
  brokerGone?: (pid: number) => void;
}

export interface Supervisor extends NodeRuntime {
  /** Recovers what the previous daemon left, then starts queued nodes. */
  start(): void;
  /** Kills every broker (the nodes stay `running` for the next start); no new one starts. */
  close(): Promise<void>;
  /** The live brokers: node id and pid. */
  brokers(): { node_id: string; pid: number }[];
  /** Slots, brokers holding a node, and queued nodes waiting for a slot. */
  stats(): { concurrency: number; active: number; queued: number };
}

interface Active {
  tokenId: string;
  process: BrokerProcess;
  /** Ended on purpose (`stop`, `close`): its exit is no crash. */
  stopped: boolean;
  /** Where it serves viewers once it holds the node. */
  viewerSocket: string;
}

export function createSupervisor(
  deps: SupervisorDeps,
  options: SupervisorOptions = {},
): Supervisor {
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new TypeError(`concurrency must be a positive integer; received ${concurrency}`);
  }
  const graceMs = options.graceMs ?? DEFAULT_GRACE_MS;
  const spareIdleMs = options.spareIdleMs ?? DEFAULT_SPARE_IDLE_MS;
  const entry = options.entry ?? BROKER_ENTRY;
  const cache = join(deps.home, 'cache');
  /** What brokers run: `entry`, or its bundle once built. */
  let script = entry;
  const { store, tokens, logger, hooks } = deps;
  const logs = join(deps.home, 'logs', 'brokers');
  const worktrees = join(deps.home, 'worktrees');
  const viewers = join(deps.home, 'run', 'viewers');
  const writes = writeNotesDir(deps.home);
  // Node caches the type-stripped source and V8 code of the broker's modules here, so a broker
  // after the first loads them without compiling.
  const env = { ...process.env, NODE_COMPILE_CACHE: join(cache, 'node') };
  const active = new Map<string, Active>();
  /** Git nodes whose worktree is being made (`launch`), each holding a slot. */
  const preparing = new Set<string>();
  /** Started, loaded (or loading), waiting for a launch; oldest first. */
  const spares: BrokerProcess[] = [];
  /** Set by the first launch: from then on spares are kept. */
  let warm = false;
  /** No launch for `spareIdleMs`: one spare is kept, not one per free slot. */
  let lull = false;
  let lullTimer: NodeJS.Timeout | undefined;
  let scheduled = false;
  let closed = false;

  const schedule = () => {
    if (scheduled || closed) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      fill();
    });
  };

  /** Starts queued nodes, oldest first, while slots are free; then tops up the spares. */
  function fill(): void {
    if (closed) return;
    if (busy() < concurrency) {
      for (const row of store.nodes.inStates(['queued'])) {
        if (busy() >= concurrency) break;
        // A node woken while its previous broker still exits waits for that exit.
        if (!active.has(row.id) && !preparing.has(row.id)) launch(row);
      }
    }
    if (warm) topUpSpares();
  }

  /** Slots taken: brokers, and nodes whose git worktree is being made for theirs. */
  function busy(): number {
    return active.size + preparing.size;
  }

  function warmUp(): void {
    if (warm) return;
    warm = true;
    if (options.entry !== undefined) return;
    brokerBundle(entry, cache).then(
      (file) => {
        script = file;
        logger.info({ bundle: file }, 'brokers run the bundled entry');
      },
      (error: unknown) => {
        logger.warn({ err: error }, 'brokers run the .ts entry: the bundle could not be built');
      },
    );
  }

  /** One spare per free slot, at least one (for the next slot to free up); one in a lull. */
  function topUpSpares(): void {
    const wanted = lull ? 1 : Math.max(1, concurrency - active.size);
    for (let i = spares.length - 1; i >= 0; i--) if (!spares[i]!.alive) spares.splice(i, 1);
    while (spares.length < wanted) {
      let spare: BrokerProcess;
      try {
        spare = spawnBroker({ entry: script, cwd: worktrees, env });
      } catch (error) {
        // The launch that needs one starts it cold (and reports what fails then).
        logger.warn({ err: error }, 'could not start a spare broker');
        return;
      }
      spares.push(spare);
    }
  }

  /** Launches restart the lull's clock; once it runs out, the spares but one are stopped. */
  function launched(): void {
    lull = false;
    clearTimeout(lullTimer);
    lullTimer = setTimeout(() => {
      lull = true;
      for (const spare of spares.splice(1)) void spare.stop(0);
    }, spareIdleMs);
    // A quiet daemon exits as if no timer were set.
    lullTimer.unref();
  }

  /** A spare that is still alive, else a broker started now. */
  function takeBroker(): BrokerProcess {
    for (let spare = spares.shift(); spare !== undefined; spare = spares.shift()) {
      if (spare.alive) return spare;
    }
    return spawnBroker({ entry: script, cwd: worktrees, env });
  }

  /**
   * Starts `row`'s broker; a git node's worktree first, in the background (a checkout may take a
   * while), its slot held meanwhile. A node cancelled while git worked is not started.
   */
  function launch(row: NodeRow): void {
    const { workspace } = row;
    if (workspace === null) {
      start(row, null);
      return;
    }
    const cwd = worktreePath(deps.home, row.id);
    preparing.add(row.id);
    addGitWorktree(workspace, cwd)
      .then(
        () => {
          preparing.delete(row.id);
          if (closed) return;
          const now = store.nodes.get(row.id);
          if (now?.state === 'queued' && !active.has(row.id)) start(now, workspace);
        },
        (error: unknown) => {
          preparing.delete(row.id);
          if (!closed) hooks.unlaunchable(row.id, error, 'worktree_failed');
        },
      )
      .catch((error: unknown) => {
        logger.error({ err: error, node_id: row.id }, 'could not launch a git node');
      })
      .finally(schedule);
  }

  /** Mints the node's token and hands a broker its launch; its worktree is there (or made here). */
  function start(row: NodeRow, workspace: Workspace | null): void {
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
    const viewerSocket = viewerSocketPath(viewers, row.id);
    warmUp();
    launched();
    let child: BrokerProcess;
    try {
      child = takeBroker();
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
        join(logs, `${row.id}.log`),
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
    const broker: Active = { tokenId: dto.id, process: child, stopped: false, viewerSocket };
    active.set(row.id, broker);
    logger.info({ node_id: row.id, pid: child.pid }, 'broker started');
    void child.exited.then((exit) => ended(row.id, broker, exit));
  }

  function ended(nodeId: string, broker: Active, exit: BrokerExit): void {
    // First: what a broker that died unasked left running (init holds it now) goes before the
    // node's next broker starts, whose processes carry another mark.
    signalAll(marked(nodeId, broker.process.pid), 'SIGKILL');
    deps.brokerGone?.(broker.process.pid);
    active.delete(nodeId);
    rmSync(broker.viewerSocket, { force: true });
    // The temp file of a write its file tool was making when it was killed.
    sweepWrites(writes, (pid) => pid === broker.process.pid);
    const how = exit.signal === null ? `code ${exit.code}` : `signal ${exit.signal}`;
    logger.info({ node_id: nodeId, exit: how }, 'broker exited');
    if (closed) return; // the database may be closing; `close` ends the rows itself
    try {
      const claimed = store.brokers.get(broker.tokenId)?.claimed_at != null;
      tokens.revoke(broker.tokenId);
      store.brokers.end(broker.tokenId, how, new Date().toISOString());
      hooks.ended(nodeId);
      const state = store.nodes.get(nodeId)?.state;
      if (!broker.stopped && (state === 'running' || (state === 'queued' && !claimed))) {
        hooks.crashed(nodeId, `the broker exited (${how}) while the node ran`);
      }
    } catch (error) {
      logger.error({ err: error, node_id: nodeId }, 'could not record a broker exit');
    }
    schedule();
  }

  /** Brokers of a previous daemon: killed (when still ours and alive), tokens revoked. */
  function recover(): void {
    const at = new Date().toISOString();
    for (const row of store.brokers.live()) {
      if (row.pid !== null && isBroker(row.pid, [entry, join(cache, 'broker-')])) {
        signalAll([{ pid: row.pid, ppid: 0, pgid: row.pid }, ...descendants(row.pid)], 'SIGKILL');
      }
      // And what it started that outlived it, had it died with the daemon.
      if (row.pid !== null) signalAll(marked(row.node_id, row.pid), 'SIGKILL');
      tokens.revoke(row.token_id);
      store.brokers.end(row.token_id, 'lost', at);
      hooks.ended(row.node_id);
    }
    // No broker lives before this daemon starts one: a job still `running` ran in a broker that
    // is gone (stopped with the last daemon, whose close records no job ends).
    for (const nodeId of store.jobs.runningNodes()) hooks.ended(nodeId);
    for (const row of store.nodes.inStates(['running'])) hooks.lost(row.id);
  }

  return {
    wake: schedule,
    async stop(nodeId) {
      const broker = active.get(nodeId);
      if (broker === undefined) return;
      broker.stopped = true;
      await broker.process.stop(graceMs);
      // A broker given its grace has settled what it cut short; one that needed SIGKILL has not.
      hooks.stopped(nodeId);
    },
    start() {
      mkdirSync(worktrees, { recursive: true, mode: 0o700 });
      mkdirSync(logs, { recursive: true, mode: 0o700 });
      // Sockets a previous daemon's brokers left are stale: their brokers are killed below.
      rmSync(viewers, { recursive: true, force: true });
      mkdirSync(viewers, { recursive: true, mode: 0o700 });
      chmodSync(viewers, 0o700);
      recover();
      schedule();
    },
    async close() {
      closed = true;
      clearTimeout(lullTimer);
      const at = new Date().toISOString();
      await Promise.all([
        ...spares.splice(0).map((spare) => spare.stop(0)),
        ...[...active.values()].map(async (broker) => {
          broker.stopped = true;
          const exit = await broker.process.stop(0);
          tokens.revoke(broker.tokenId);
          const how = exit.signal === null ? `code ${exit.code}` : `signal ${exit.signal}`;
          store.brokers.end(broker.tokenId, how, at);
        }),
      ]);
    },
    async viewerSocket(nodeId) {
      const live = () => {
        const broker = active.get(nodeId);
        // A broker still exiting after its node ended (or parked) is no longer one to attach to.
        if (broker === undefined || store.nodes.get(nodeId)?.state !== 'running') return null;
        return broker.process.alive && existsSync(broker.viewerSocket) ? broker : null;
      };
      const broker = live();
      if (broker === null) return null;
      // The file appears when the broker binds (after its claim) and goes when it closes; only a
      // connect tells that it listens, and the node's broker is still that one once it has.
      if (!(await acceptsConnections(broker.viewerSocket))) return null;
      return live() === broker ? broker.viewerSocket : null;
    },
    brokers: () => [...active].map(([node_id, b]) => ({ node_id, pid: b.process.pid })),
    stats: () => ({
      concurrency,
      active: active.size,
      queued: store.nodes.countInState('queued'),
    }),
  };
}

/**
 * `<dir>/<node id>.sock`, or `<dir>/<hash of the id>.sock` when that would pass the unix socket
 * path limit (a deep home); the hash keeps it unique per node.
 */
export function viewerSocketPath(dir: string, nodeId: string): string {
  const named = join(dir, `${nodeId}.sock`);
  if (socketPathProblem(named) === null) return named;
  return join(dir, `${createHash('sha256').update(nodeId).digest('hex').slice(0, 16)}.sock`);
}

/** The pid still runs our broker entry or bundle (not a process that reused the pid since). */
function isBroker(pid: number, scripts: readonly string[]): boolean {
  if (!isAlive(pid)) return false;
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return scripts.some((s) => cmdline.includes(s));
  } catch {
    // No /proc: trust the pid, as a stale one is rare and its signal is refused unless it is ours.
    return true;
  }
}
