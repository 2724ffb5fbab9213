import { LOG_LEVELS, resolveHome } from '@svc/protocol/home';
import type { DaemonContext } from './context.ts';
import { directoryKeys } from './directory/keys.ts';
import { ApiError, DaemonError } from './errors.ts';
import { createApp } from './http/app.ts';
import { SSE_KEEPALIVE_MS, sseRegistry } from './http/sse.ts';
import { prepareHome } from './lifecycle/home.ts';
import { acquireLock, releaseLock } from './lifecycle/lock.ts';
import { createLogger } from './lifecycle/logger.ts';
import type { ListenerServer } from './listeners/server.ts';
import { listenTcp, type TcpListener } from './listeners/tcp.ts';
import { listenUnix } from './listeners/unix.ts';
import type { TcpInfo } from './ports.ts';
import { sandboxService } from './sandbox/service.ts';
import { loadSandboxSettings, type SandboxMode } from './sandbox/settings.ts';
import { attachmentService } from './services/attachments.ts';
import { brokerPlane } from './services/broker-plane.ts';
import { canvasService } from './services/canvas.ts';
import { canvasHistoryService } from './services/canvas-history.ts';
import { cronScheduler } from './services/cron-scheduler.ts';
import { cronService } from './services/crons.ts';
import { customObjectService, type DeliveryPolicy } from './services/custom-objects.ts';
import { directoryService } from './services/directory.ts';
import { eventLog } from './services/events.ts';
import { focusService } from './services/focuses.ts';
import { humanService } from './services/human.ts';
import { humanExpiry } from './services/human-expiry.ts';
import { llmService } from './services/llm.ts';
import { memoryService } from './services/memory.ts';
import { modelService } from './services/models.ts';
import { nodeService } from './services/nodes.ts';
import { objectDispatcher } from './services/object-dispatcher.ts';
import { pluginService } from './services/plugins.ts';
import { profileService } from './services/profiles.ts';
import { providerService } from './services/providers.ts';
import { questionService } from './services/questions.ts';
import { runService } from './services/runs.ts';
import { shareService } from './services/shares.ts';
import { tokenService } from './services/tokens.ts';
import { removeWorktrees } from './services/tree-removal.ts';
import { uploadService } from './services/uploads.ts';
import { viewerService } from './services/viewer.ts';
import { sweepWrites, writeNotesDir } from './services/write-notes.ts';
import { openStore } from './store/index.ts';
import { createSupervisor, parseConcurrency } from './supervisor/supervisor.ts';
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
   * Brokers: how many run at once (default `SVC_BROKERS`, else 4), crashes in a row before a node
   * fails (default 3), and the broker entry script (default `src/broker/main.ts`; tests
   * substitute their own).
   */
  brokers?: { concurrency?: number; relaunchBudget?: number; entry?: string; spareIdleMs?: number };
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
 * token exists, and listens on the unix socket (and TCP when asked).
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
  const cleanups: (() => void)[] = [() => releaseLock(paths.home)];
  let unix: ListenerServer | undefined;
  try {
    const store = openStore(paths.db);
    cleanups.unshift(() => store.db.close());
    store.idempotency.releaseUnfinished();
    const events = eventLog(store);
    const tokens = tokenService(store, events);
    tokens.ensureOwner(paths.ownerToken);
    const models = modelService(store, events);
    const profiles = profileService(store, events);
    const nodes = nodeService({ store, events, profiles, models, home: paths.home });
    nodes.start();
    cleanups.unshift(() => nodes.close());
    const runs = runService(store, events, nodes, (ids) =>
      removeWorktrees(paths.home, logger, ids),
    );
    const crons = cronService({ store, events, nodes });
    const scheduler = cronScheduler(crons, logger);
    cleanups.unshift(() => scheduler.close());
    const human = humanService({ store, events, nodes });
    const expiry = humanExpiry(human, logger);
    cleanups.unshift(() => expiry.close());
    const customObjects = customObjectService({ store, events, policy: opts.objects });
    const dispatcher = objectDispatcher(customObjects, logger, `svc/${DAEMON_VERSION}`);
    cleanups.unshift(() => dispatcher.close());
    const questions = questionService({ store, events, human, nodes });
    const uploads = uploadService({ store, events, home: paths.home });
    const sandbox = sandboxService({
      home: paths.home,
      settings: loadSandboxSettings(paths.home, opts.sandbox ?? 'on'),
      profiles,
    });
    if (!sandbox.host.ready) {
      logger.warn({ reason: sandbox.host.reason }, 'no sandbox: confined commands are refused');
    }
    const brokers = brokerPlane({
      store,
      events,
      nodes,
      models,
      profiles,
      sandbox,
      ...(opts.brokers?.relaunchBudget !== undefined && {
        relaunchBudget: opts.brokers.relaunchBudget,
      }),
    });
    const concurrency =
      opts.brokers?.concurrency ?? parseConcurrency(process.env.SVC_BROKERS, 'SVC_BROKERS');
    const supervisor = createSupervisor(
      {
        home: paths.home,
        socketPath: paths.socket,
        store,
        tokens,
        logger,
        hooks: brokers.hooks,
        brokerGone: (pid) => sandbox.brokerGone(pid),
      },
      {
        ...(concurrency !== undefined && { concurrency }),
        ...(opts.brokers?.entry !== undefined && { entry: opts.brokers.entry }),
        ...(opts.brokers?.spareIdleMs !== undefined && { spareIdleMs: opts.brokers.spareIdleMs }),
      },
    );
    nodes.useRuntime(supervisor);

    const hardStop = new AbortController();
    const sse = sseRegistry();
    let tcp: TcpListener | null = null;
    let tcpStarting: Promise<TcpInfo> | null = null;
    let closing: Promise<void> | null = null;
    let resolveClosed!: () => void;
    const closed = new Promise<void>((resolve) => {
      resolveClosed = resolve;
    });

    const enableTcp = (want: { host?: string | undefined; port?: number | undefined } = {}) => {
      if (closing !== null)
        return Promise.reject(new ApiError('not_ready', 'the daemon is shutting down'));
      tcpStarting ??= listenTcp(app, want).then(
        (listener) => {
          tcp = listener;
          events.record('listener.tcp', null, listener.info);
          logger.info({ tcp: listener.info }, 'tcp listener on');
          return listener.info;
        },
        (error: unknown) => {
          tcpStarting = null;
          throw error;
        },
      );
      return tcpStarting.then((info) => {
        const hostDiffers = want.host !== undefined && want.host !== info.host;
        const portDiffers = want.port !== undefined && want.port !== 0 && want.port !== info.port;
        if (hostDiffers || portDiffers) {
          throw new DaemonError(
            'tcp_already_on',
            `the TCP listener is already on at ${info.base_url}`,
          );
        }
        return info;
      });
    };

    const close = (): Promise<void> => {
      closing ??= (async () => {
        logger.info('daemon stopping');
        try {
          events.record('daemon.stopping', null, { pid: process.pid });
        } catch (error) {
          // A shutdown must finish even when the database is failing.
          logger.error({ err: error }, 'could not record daemon.stopping');
        }
        sse.closeAll();
        // No fire once stopping began: its node would queue for a supervisor going away.
        scheduler.close();
        expiry.close();
        dispatcher.close();
        // Brokers are killed, not drained: their nodes stay running and the next start
        // relaunches them from what is recorded.
        await supervisor.close();
        await sandbox.close();
        const grace = opts.drainTimeoutMs ?? 30_000;
        const giveUp = setTimeout(() => hardStop.abort(), grace);
        await Promise.all([unix?.close(grace), tcp?.close(grace)]);
        clearTimeout(giveUp);
        for (const cleanup of cleanups) cleanup();
        logger.info('daemon stopped');
        closeLog();
        resolveClosed();
      })();
      return closing;
    };

    const directory = directoryService({
      store,
      keys: directoryKeys(paths.home),
      tcp: () => tcp?.info ?? null,
      profiles,
    });
    const ctx: DaemonContext = {
      version: DAEMON_VERSION,
      pid: process.pid,
      startedAt: new Date(lock.started_at),
      home: paths.home,
      socketPath: paths.socket,
      ownerTokenFile: paths.ownerToken,
      store,
      tokens,
      events,
      models,
      profiles,
      plugins: pluginService(store, events),
      llm: llmService(models, profiles),
      nodes,
      runs,
      crons,
      customObjects,
      canvas: canvasService({ store, events, nodes, crons, home: paths.home, logger }),
      canvasHistory: canvasHistoryService({ store, nodes }),
      human,
      memory: memoryService({ store, events }),
      brokers,
      directory,
      providers: providerService({ store, profiles, directory }),
      uploads,
      attachments: attachmentService({ store, uploads, tcp: () => tcp?.info ?? null }),
      shares: shareService(store, events),
      questions,
      focuses: focusService({ store, nodes }),
      supervisor,
      sandbox,
      viewer: viewerService(store, events, {
        linkTtlMs: opts.viewer?.linkTtlMs,
        now: opts.viewer?.now,
      }),
      viewerDist: opts.viewer?.dist ?? DEFAULT_VIEWER_DIST,
      logger,
      requestLog,
      sse,
      sseKeepaliveMs: opts.sseKeepaliveMs ?? SSE_KEEPALIVE_MS,
      tcp: () => tcp?.info ?? null,
      enableTcp,
      draining: () => closing !== null,
      requestShutdown: () => setImmediate(() => void close()),
      hardStop: hardStop.signal,
    };
    const app = createApp(ctx);
    // Before this daemon takes a request or starts a broker: every note is then a dead writer's
    // (the last daemon's, or its brokers', whose kill follows), whatever its pid says now.
    sweepWrites(writeNotesDir(paths.home), () => true);
    unix = await listenUnix(app, paths.socket);
    supervisor.start();
    // After the supervisor: the nodes of fires missed while the daemon was down queue for it.
    scheduler.start();
    // Likewise: requests that expired while the daemon was down wake their nodes.
    expiry.start();
    // Deliveries due (or left in flight) while the daemon was down go out now.
    dispatcher.start();
    if (opts.tcp) await enableTcp(opts.tcp);
    events.record('daemon.started', null, { pid: process.pid, version: DAEMON_VERSION });
    logger.info(
      { home: paths.home, socket: paths.socket, version: DAEMON_VERSION },
      'daemon started',
    );
    if (opts.installSignalHandlers) installSignalHandlers(close, logger);

    return {
      home: paths.home,
      socketPath: paths.socket,
      get tcp() {
        return tcp?.info ?? null;
      },
      enableTcp: (o) => enableTcp(o),
      close,
      closed,
    };
  } catch (error) {
    await unix?.close(0);
    for (const cleanup of cleanups) cleanup();
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
