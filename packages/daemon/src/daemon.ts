import { LOG_LEVELS, resolveHome } from '@svc/protocol/home';
import { confinedGit } from './bash/git-runner.ts';
import type { DaemonContext } from './context.ts';
import type { DeliveryPolicy } from './custom-objects/service.ts';
import { createApp } from './http/app.ts';
import { SSE_KEEPALIVE_MS, sseRegistry } from './http/sse.ts';
import { prepareHome } from './lifecycle/home.ts';
import { acquireLock, releaseLock } from './lifecycle/lock.ts';
import { createLogger } from './lifecycle/logger.ts';
import { clockPart } from './lifecycle/parts/clock.ts';
import { heapReleasePart } from './lifecycle/parts/heap-release.ts';
import { type Listeners, listenersPart } from './lifecycle/parts/listeners.ts';
import { partList } from './lifecycle/parts/part.ts';
import { resourcesPart } from './lifecycle/parts/resources.ts';
import { sandboxPart } from './lifecycle/parts/sandbox.ts';
import { storePart } from './lifecycle/parts/store.ts';
import { supervisorPart } from './lifecycle/parts/supervisor.ts';
import { sweepWrites, writeNotesDir } from './nodes/workspace/write-notes.ts';
import type { TcpInfo } from './ports.ts';
import type { SandboxService } from './sandbox/service.ts';
import type { SandboxMode } from './sandbox/settings.ts';
import type { Flush } from './store/db.ts';
import { DAEMON_VERSION } from './version.ts';
import { DEFAULT_VIEWER_DIST } from './viewer-dist.ts';

export interface StartDaemonOptions {
  /** `SVC_HOME`; default `resolveHome()` (`SVC_HOME` env, then `~/.svc`). */
  home?: string;
  /** Turn the TCP listener on at start (default off). */
  tcp?: { host?: string; port?: number } | false;
  /** pino level for `logs/daemon.log`; default `info`. */
  logLevel?: string;
  /** SIGTERM/SIGINT drain and close the daemon (a second signal exits at once). Default false. */
  installSignalHandlers?: boolean;
  /** Interval of SSE `: keepalive` comments; default 15 s. For tests. */
  sseKeepaliveMs?: number;
  /** How long a shutdown waits for requests in flight before cutting them; default 30 s. */
  drainTimeoutMs?: number;
  /**
   * Brokers: how many nodes run at once (default `SVC_BROKERS`, else 4), crashes in a row before
   * a node fails (default 3), the agent host entry script (default `src/broker/host.ts`; tests
   * substitute their own), nodes per agent host (default `SVC_HOST_CAPACITY`, else 16), and
   * the agent hosts' niceness, 0 (off) to 19 (default `SVC_HOST_NICENESS`, else 0).
   */
  brokers?: {
    concurrency?: number;
    relaunchBudget?: number;
    entry?: string;
    spareIdleMs?: number;
    hostCapacity?: number;
    hostNiceness?: number;
  };
  /**
   * Custom objects' url and argv receivers: attempts, backoff and the time one attempt may take
   * (defaults in `DEFAULT_DELIVERY_POLICY`). For tests.
   */
  objects?: Partial<DeliveryPolicy>;
  /**
   * The web viewer: where its build is (default `packages/viewer/dist` of this checkout), and,
   * for tests, how long a login link lives (default 60 s) and the clock its links and sessions
   * read.
   */
  viewer?: { dist?: string; linkTtlMs?: number; now?: () => number };
  /**
   * Confinement of the commands of nodes and scoped tokens (docs/security.md, "The sandbox"):
   * `on` (the default) runs them in bubblewrap and refuses them where it cannot; `off` is the
   * person's explicit choice to run them unconfined, which every such result then says.
   */
  sandbox?: SandboxMode;
  /** How the database's WAL is made durable (default `fdatasync`). For tests, to hold it. */
  flush?: Flush;
}

export { DEFAULT_VIEWER_DIST };

export interface DaemonHandle {
  home: string;
  socketPath: string;
  /** The TCP listener, or `null` while it is off. */
  readonly tcp: TcpInfo | null;
  /** Turns the TCP listener on (a no-op answering the current one when it is on). */
  enableTcp(opts?: { host?: string; port?: number }): Promise<TcpInfo>;
  /** Drains requests in flight, ends event streams, closes the database, removes socket and lock. */
  close(): Promise<void>;
  /** Settles once the daemon has closed, whoever asked (`close()`, a signal, `POST /v1/shutdown`). */
  closed: Promise<void>;
}

/**
 * Starts a daemon in this process: takes the home's lock, opens the database, makes sure an owner
 * token exists, and listens on the unix socket (and TCP when asked). The daemon is the list of
 * its parts below: built and started in this order, closed in the reverse.
 */
export async function startDaemon(opts: StartDaemonOptions = {}): Promise<DaemonHandle> {
  const logLevel = opts.logLevel ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new TypeError(
      `logLevel must be one of ${LOG_LEVELS.join(', ')}; received ${JSON.stringify(logLevel)}`,
    );
  }
  const paths = prepareHome(resolveHome(opts.home));
  const lock = acquireLock(paths.home);
  const { logger, request: requestLog, close: closeLog } = createLogger(paths.logFile, logLevel);
  const parts = partList();
  let closing: Promise<void> | null = null;
  // The resources name the TCP address before the listeners exist: read when asked, not now.
  let listeners: Listeners | undefined;
  const tcp = () => listeners?.tcp() ?? null;
  const { git, sandboxIs } = gitInLateSandbox();
  try {
    parts.add({ name: 'lock', close: () => releaseLock(paths.home) });
    const { store } = parts.add(
      storePart(paths.db, {
        flush: opts.flush,
        onCallbackError: (error) => logger.error({ err: error }, 'an after-commit callback threw'),
      }),
    );
    const { services } = parts.add(
      resourcesPart({
        store,
        home: paths.home,
        ownerTokenFile: paths.ownerToken,
        logger,
        tcp,
        git,
        objects: opts.objects,
        viewer: opts.viewer,
      }),
    );
    const { events, profiles } = services;
    listeners = parts.add(
      listenersPart({ socketPath: paths.socket, events, logger, draining: () => closing !== null }),
    );
    // Before this daemon takes a request or starts a broker: every note is then a dead writer's
    // (the last daemon's, or its brokers', whose kill follows), whatever its pid says now.
    parts.add({
      name: 'write notes',
      start: () => {
        sweepWrites(writeNotesDir(paths.home), () => true);
      },
    });
    const { sandbox } = parts.add(
      sandboxPart({ home: paths.home, mode: opts.sandbox ?? 'on', profiles, logger }),
    );
    sandboxIs(sandbox);
    const { brokers, supervisor } = parts.add(
      supervisorPart({
        home: paths.home,
        socketPath: paths.socket,
        resources: services,
        sandbox,
        logger,
        brokers: opts.brokers,
      }),
    );
    parts.add(clockPart(services, logger));
    const sse = sseRegistry();
    parts.add({
      name: 'event streams',
      // What was committed before the end (`daemon.stopping` included) goes out once durable.
      close: async () => {
        await store.db.durable()?.catch(() => {});
        sse.closeAll();
      },
    });

    let resolveClosed!: () => void;
    const closed = new Promise<void>((resolve) => {
      resolveClosed = resolve;
    });
    const close = (): Promise<void> => {
      closing ??= (async () => {
        logger.info('daemon stopping');
        try {
          events.record('daemon.stopping', null, { pid: process.pid });
        } catch (error) {
          // A shutdown must finish even when the database is failing.
          logger.error({ err: error }, 'could not record daemon.stopping');
        }
        await parts.close(opts.drainTimeoutMs ?? 30_000);
        logger.info('daemon stopped');
        closeLog();
        resolveClosed();
      })();
      return closing;
    };

    const ctx: DaemonContext = {
      version: DAEMON_VERSION,
      pid: process.pid,
      startedAt: new Date(lock.started_at),
      home: paths.home,
      socketPath: paths.socket,
      ownerTokenFile: paths.ownerToken,
      ...services,
      brokers,
      supervisor,
      sandbox,
      viewerDist: opts.viewer?.dist ?? DEFAULT_VIEWER_DIST,
      logger,
      requestLog,
      sse,
      sseKeepaliveMs: opts.sseKeepaliveMs ?? SSE_KEEPALIVE_MS,
      tcp,
      enableTcp: listeners.enableTcp,
      draining: () => closing !== null,
      requestShutdown: () => setImmediate(() => void close()),
      hardStop: listeners.hardStop,
    };
    const release = parts.add(heapReleasePart(logger, paths.home));
    const app = createApp(ctx);
    listeners.serve({
      serve: (req, res, listener) => {
        release.touch();
        app.serve(req, res, listener);
      },
    });
    await parts.start();
    if (opts.tcp) await listeners.enableTcp(opts.tcp);
    events.record('daemon.started', null, { pid: process.pid, version: DAEMON_VERSION });
    logger.info(
      { home: paths.home, socket: paths.socket, version: DAEMON_VERSION },
      'daemon started',
    );
    if (opts.installSignalHandlers) installSignalHandlers(close, logger);

    const enableTcp = listeners.enableTcp;
    return {
      home: paths.home,
      socketPath: paths.socket,
      get tcp() {
        return tcp();
      },
      enableTcp: (o) => enableTcp(o),
      close,
      closed,
    };
  } catch (error) {
    await parts.close(0);
    closeLog();
    throw error;
  }
}

function installSignalHandlers(
  close: () => Promise<void>,
  logger: { info(o: object, m: string): void },
): void {
  let signalled = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled) process.exit(130);
    signalled = true;
    logger.info({ signal }, 'signal received; draining');
    void close();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

/**
 * The daemon's git runner, confined by the sandbox service given once it is made: as with `tcp`,
 * the resources (which run git on the worktrees they remove) are made before the sandbox, which
 * reads their profiles.
 */
function gitInLateSandbox() {
  let sandboxed: SandboxService | undefined;
  const git = confinedGit((call) => {
    if (sandboxed === undefined) throw new Error('git ran before the sandbox was made');
    return sandboxed.forGit(call.repository, call.worktree);
  });
  const sandboxIs = (sandbox: SandboxService) => {
    sandboxed = sandbox;
  };
  return { git, sandboxIs };
}
