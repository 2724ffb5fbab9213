import { brokerPlane } from '../../broker-plane/service.ts';
import type { SandboxService } from '../../sandbox/service.ts';
import { parseNiceness } from '../../supervisor/host-niceness.ts';
import { reconfineProfile } from '../../supervisor/reconfine.ts';
import { createSupervisor, parseConcurrency } from '../../supervisor/supervisor.ts';
import type { Logger } from '../logger.ts';
import { definePart } from './part.ts';
import type { Resources } from './resources.ts';

export interface BrokerOptions {
  concurrency?: number | undefined;
  relaunchBudget?: number | undefined;
  entry?: string | undefined;
  /** After this long with no launch, room for one node is kept, not one per free slot. */
  spareIdleMs?: number | undefined;
  /** Nodes one agent host runs at most (`SVC_HOST_CAPACITY`, else 16). */
  hostCapacity?: number | undefined;
  /** Agent hosts' niceness, 0 (off) to 19 (`SVC_HOST_NICENESS`, else 0). */
  hostNiceness?: number | undefined;
}

/**
 * The brokers: the plane that records what they do and the supervisor that runs them. Started
 * once the listeners are up (a broker calls the daemon back); closed by killing them, not
 * draining: their nodes stay running and the next start relaunches them from what is recorded.
 */
export function supervisorPart(opts: {
  home: string;
  socketPath: string;
  resources: Pick<
    Resources,
    'store' | 'events' | 'nodes' | 'models' | 'profiles' | 'tokens' | 'git'
  >;
  sandbox: SandboxService;
  logger: Logger;
  brokers?: BrokerOptions | undefined;
}) {
  const { store, events, nodes, models, profiles, tokens } = opts.resources;
  const { sandbox } = opts;
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
  const hostCapacity =
    opts.brokers?.hostCapacity ??
    parseConcurrency(process.env.SVC_HOST_CAPACITY, 'SVC_HOST_CAPACITY');
  const hostNiceness =
    opts.brokers?.hostNiceness ?? parseNiceness(process.env.SVC_HOST_NICENESS, 'SVC_HOST_NICENESS');
  const supervisor = createSupervisor(
    {
      home: opts.home,
      git: opts.resources.git,
      socketPath: opts.socketPath,
      store,
      tokens,
      logger: opts.logger,
      hooks: brokers.hooks,
      brokerGone: (pid) => sandbox.brokerGone(pid),
    },
    {
      ...(concurrency !== undefined && { concurrency }),
      ...(opts.brokers?.entry !== undefined && { entry: opts.brokers.entry }),
      ...(opts.brokers?.spareIdleMs !== undefined && { spareIdleMs: opts.brokers.spareIdleMs }),
      ...(hostCapacity !== undefined && { hostCapacity }),
      ...(hostNiceness !== undefined && { hostNiceness }),
    },
  );
  nodes.useRuntime(supervisor);
  profiles.onChange((name) => reconfineProfile({ store, supervisor }, name));
  return definePart({
    name: 'supervisor',
    brokers,
    supervisor,
    start: () => supervisor.start(),
    close: () => supervisor.close(),
  });
}
