/**
 * What the supervisor holds while it runs (see supervisor.ts): its deps, its options with their
 * defaults merged once, and the leases, hosts and slots it keeps. Each of its operations (one
 * a file here) takes this first.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../lifecycle/logger.ts';
import { writeNotesDir } from '../nodes/workspace/write-notes.ts';
import type { SupervisorHooks } from '../ports.ts';
import type { Store } from '../store/index.ts';
import type { TokenService } from '../tokens/service.ts';
import type { GitRunner } from '../worktrees/git.ts';
import type { AgentHost } from './agent-host.ts';
import type { BrokerProcess } from './broker-process.ts';
import { MAX_NICENESS } from './host-niceness.ts';
import type { PidWindow } from './process-tree.ts';

export const DEFAULT_CONCURRENCY = 4;
/** Agent hosts' niceness by default (`./host-niceness.ts`): 0, off. */
export const DEFAULT_HOST_NICENESS = 0;
/** SIGTERM → SIGKILL: with the kill itself, everything is gone well within a second. */
export const DEFAULT_GRACE_MS = 500;
/**
 * A host with no node holds about 100 MB: a burst of launches finds room for every free slot,
 * but a daemon that launched nothing for this long keeps room for one (one host).
 */
export const DEFAULT_SPARE_IDLE_MS = 30_000;
/**
 * Nodes per agent host. A host costs about 100 MB however many loops it runs, and a loop a few
 * MB: at 16 the host's share is ~6 MB a node, well under the 30 MB a node may add; a host crash
 * relaunches at most 16 nodes (each charged one relaunch); and 16 loops' own CPU (parsing,
 * bookkeeping between requests) stays a small part of one core.
 */
export const DEFAULT_HOST_CAPACITY = 16;
/** How long past a stop's grace a host may take to confirm it before it is killed whole. */
export const DEFAULT_STOP_MARGIN_MS = 400;
const BROKER_ENTRY = fileURLToPath(new URL('../broker/host.ts', import.meta.url));

export interface SupervisorOptions {
  /** Brokers running at once; further queued nodes wait. Default 4. */
  concurrency?: number;
  /** SIGTERM → SIGKILL delay of `stop`. Default 500 ms. */
  graceMs?: number;
  /** The agent host entry script, run as it is; default `src/broker/host.ts`, bundled when it can be. */
  entry?: string;
  /** No launch for this long: room for one node is kept, hosts with no node beyond it exit. Default 30 s. */
  spareIdleMs?: number;
  /** Nodes one agent host runs at most. Default 16. */
  hostCapacity?: number;
  /** Niceness of each agent host, its sandboxes and commands (`./host-niceness.ts`); 0 = off. */
  hostNiceness?: number;
}

export interface SupervisorDeps {
  home: string;
  /** How git makes a git node's worktree: confined (`../bash/git-runner.ts`). */
  git: GitRunner;
  socketPath: string;
  store: Store;
  tokens: TokenService;
  logger: Logger;
  hooks: SupervisorHooks;
  /** A broker process is gone: what it left of its commands' control groups goes too. */
  brokerGone?: (pid: number) => void;
}

export interface Active {
  tokenId: string;
  process: BrokerProcess;
  /** Ended on purpose (`stop`, `close`): its exit is no crash. */
  stopped: boolean;
  /** Where it serves viewers once it holds the node. */
  viewerSocket: string;
  /** The pids handed out from its launch on: its end scans only those for its mark. */
  pids: PidWindow | null;
  /**
   * Its commands run in sandboxes (the plan's mode `on`): each in a PID namespace that ends with
   * its sandbox, taking every process in it along, so none of them can outlive the loop.
   */
  confined: boolean;
}

export interface SupervisorState {
  readonly deps: SupervisorDeps;
  readonly concurrency: number;
  readonly graceMs: number;
  readonly spareIdleMs: number;
  readonly hostCapacity: number;
  readonly hostNiceness: number;
  readonly stopMarginMs: number;
  readonly entry: string;
  /** The entry was given: it runs as it is, never bundled. */
  readonly entryGiven: boolean;
  readonly cache: string;
  readonly logs: string;
  readonly worktrees: string;
  readonly viewers: string;
  /** Where each agent host's private directory is made (`../sandbox/private-tmp.ts`). */
  readonly hostsTmp: string;
  readonly writes: string;
  readonly env: NodeJS.ProcessEnv;
  /** What brokers run: `entry`, or its bundle once built. */
  script: string;
  readonly active: Map<string, Active>;
  /** Git nodes whose worktree is being made (`launch`), each holding a slot. */
  readonly preparing: Set<string>;
  /** The agent hosts running: each holds up to `hostCapacity` nodes; oldest first. */
  readonly hosts: AgentHost[];
  /**
   * Nodes whose last loop crashed (with its host): each runs on a host of its own until a loop
   * of it ends otherwise, so a node that brings its host down burns no other node's budget again.
   */
  readonly isolated: Set<string>;
  /** Set by the first launch: from then on warm room is kept. */
  warm: boolean;
  /** No launch for `spareIdleMs`: room for one node is kept, not one per free slot. */
  lull: boolean;
  lullTimer: NodeJS.Timeout | undefined;
  scheduled: boolean;
  closed: boolean;
  /** Starts queued nodes soon (`./fill.ts`); set once the state is made, to break the circle. */
  schedule: () => void;
}

export function createSupervisorState(
  deps: SupervisorDeps,
  options: SupervisorOptions,
): SupervisorState {
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new TypeError(`concurrency must be a positive integer; received ${concurrency}`);
  }
  const hostCapacity = options.hostCapacity ?? DEFAULT_HOST_CAPACITY;
  if (!Number.isInteger(hostCapacity) || hostCapacity < 1) {
    throw new TypeError(`hostCapacity must be a positive integer; received ${hostCapacity}`);
  }
  const hostNiceness = options.hostNiceness ?? DEFAULT_HOST_NICENESS;
  if (!Number.isInteger(hostNiceness) || hostNiceness < 0 || hostNiceness > MAX_NICENESS) {
    throw new TypeError(
      `hostNiceness must be an integer from 0 to ${MAX_NICENESS}; received ${hostNiceness}`,
    );
  }
  const entry = options.entry ?? BROKER_ENTRY;
  const cache = join(deps.home, 'cache');
  return {
    deps,
    concurrency,
    graceMs: options.graceMs ?? DEFAULT_GRACE_MS,
    spareIdleMs: options.spareIdleMs ?? DEFAULT_SPARE_IDLE_MS,
    hostCapacity,
    hostNiceness,
    stopMarginMs: DEFAULT_STOP_MARGIN_MS,
    entry,
    entryGiven: options.entry !== undefined,
    cache,
    logs: join(deps.home, 'logs', 'brokers'),
    worktrees: join(deps.home, 'worktrees'),
    viewers: join(deps.home, 'run', 'viewers'),
    hostsTmp: join(deps.home, 'run', 'hosts'),
    writes: writeNotesDir(deps.home),
    // Node caches the type-stripped source and V8 code of the host's modules here, so a host
    // after the first loads them without compiling.
    env: { ...process.env, NODE_COMPILE_CACHE: join(cache, 'node') },
    script: entry,
    active: new Map(),
    preparing: new Set(),
    hosts: [],
    isolated: new Set(),
    warm: false,
    lull: false,
    lullTimer: undefined,
    scheduled: false,
    closed: false,
    schedule: () => {},
  };
}
