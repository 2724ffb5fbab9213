/**
 * Runs of scripted nodes on the bench daemon (`nodes.ts`, `nodes-footprint.ts`): create many,
 * wait for each to reach a state, read back their turn gaps; and waiting for a daemon whose
 * brokers hold no node.
 */
import { join } from 'node:path';
import { type BenchDaemon, type EventDto, lastSeq, turnGaps, watch } from './nodes-client.ts';
import { cpuSnapshot, cpuSplit } from './nodes-cpu.ts';

/** Bounds every wait of the bench: a run that hangs ends with what it has. */
export const TIMEOUT_MS = 30 * 60_000;

export const SCRIPTED = { provider: 'scripted', model: 'bench' } as const;

/** A scripted node's create body: `script` is its model's turns. */
export function scriptedNode(task: string, script: readonly unknown[]) {
  return { task, scopes: ['svc:llm', 'svc:act'], model: { ...SCRIPTED, script } };
}

/**
 * How long `GET /v1/status` takes to be answered (ms), asked every `everyMs` while `running()`
 * says so, at most `max` times: what a person's `svc status` waits while the daemon is busy.
 */
export async function probeStatus(
  daemon: BenchDaemon,
  everyMs: number,
  running: () => boolean,
  max = 10_000,
): Promise<number[]> {
  const took: number[] = [];
  for (let i = 0; i < max && running(); i++) {
    const t0 = performance.now();
    await daemon.call('/v1/status');
    took.push(performance.now() - t0);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  return took;
}

export interface RunOptions {
  /** Read back the nodes' turns (the gaps between them); default true. */
  readBack?: boolean;
  /** Each node created once the one before has reached `end`: one active at a time. */
  serial?: boolean;
  /** `probeStatus` meanwhile, every this many ms (default 0: none), returned as `statusMs`. */
  probeEveryMs?: number;
}

/**
 * Creates `count` nodes of `script` and waits until each has reached `end` (its state); then
 * reads back their turns, as `opts` says.
 */
export async function runTurns(
  daemon: BenchDaemon,
  home: string,
  count: number,
  watchers: number,
  script: readonly unknown[],
  end: 'done' | 'waiting',
  opts: RunOptions = {},
) {
  const { readBack = true, serial = false, probeEveryMs = 0 } = opts;
  const lags: number[] = [];
  const ids: string[] = [];
  // Nodes seen reaching `end`: this run's, and any other's still ending (a node of an earlier
  // run on the same daemon), which `reached` does not count.
  const ended = new Set<string>();
  const reached = () => ids.filter((id) => ended.has(id)).length;
  // The wait for `reached()` to come to a count (each node's end when serial, else all of them).
  let goal: { count: number; reached: () => void } | null = null;
  const until = (target: number) =>
    new Promise<void>((resolve) => {
      if (reached() >= target) return resolve();
      const timeout = setTimeout(resolve, TIMEOUT_MS);
      goal = {
        count: target,
        reached: () => {
          clearTimeout(timeout);
          resolve();
        },
      };
    });
  const watchedFrom = Date.now();
  // Watchers first: every event of the run reaches each of them. They start after the daemon's
  // last event: replaying an earlier run's backlog to 50 streams would hold up the live events
  // behind it, a lag of the bench's making.
  const after = lastSeq(join(home, 'svc.db'));
  const streams = Array.from({ length: watchers }, (_, i) =>
    watch(
      daemon,
      home,
      (event, at) => {
        // The backlog (events from before the watchers connected) is not a delivery lag.
        if (event.createdAt >= watchedFrom) lags.push(at - event.createdAt);
        if (i !== 0 || event.kind !== 'node.state') return;
        const dto = event.dto();
        if (dto.payload.to !== end || dto.subject_id === null) return;
        ended.add(dto.subject_id);
        if (goal !== null && reached() >= goal.count) {
          goal.reached();
          goal = null;
        }
      },
      after,
    ),
  );
  await Promise.all(streams.map((s) => s.ready));

  let running = true;
  const probing = probeEveryMs > 0 ? probeStatus(daemon, probeEveryMs, () => running) : null;
  // A failed probe is thrown at its `await` below, inside the bench's try (whose `finally`
  // stops the daemons and removes the homes), not as an unhandled rejection meanwhile.
  probing?.catch(() => {});
  const t0 = performance.now();
  const cpu0 = cpuSnapshot(daemon.child.pid!);
  const benchCpu0 = process.cpuUsage();
  for (let i = 0; i < count; i++) {
    const node = await daemon.call('/v1/nodes', {
      method: 'POST',
      body: scriptedNode(`bench node ${i}`, script),
      retry: true,
    });
    ids.push(node.id as string);
    if (serial) await until(i + 1);
  }
  await until(count);
  const wallMs = performance.now() - t0;
  running = false;
  const statusMs = (await probing) ?? [];
  const split = cpuSplit(cpu0, cpuSnapshot(daemon.child.pid!));
  const benchCpu = process.cpuUsage(benchCpu0);
  const bench = (benchCpu.user + benchCpu.system) / 1000;
  // CPU per node over the run, by whom: a measure load distorts less than a wall time.
  const cpuPerNode = {
    machine: split.machine / count,
    daemon: split.daemon / count,
    hosts: split.hosts / count,
    /** This process: its watchers and its calls. */
    bench: bench / count,
    /** The sandboxes, kernel threads, anything else running. */
    rest: (split.machine - split.daemon - split.hosts - bench) / count,
    daemonWait: split.daemonWait / count,
    hostsWait: split.hostsWait / count,
  };
  for (const s of streams) s.close();

  const overheads: number[] = [];
  // The same gaps, by the kind of the turn before: a bash turn's (2 requests) and a report's (1).
  const overheadsAfter = { bash: [] as number[], report: [] as number[] };
  let failed = count - reached();
  if (readBack) {
    failed = 0;
    for (const id of ids) {
      const page = await daemon.call(
        `/v1/nodes/${id}/events?kinds=node.turn,node.tool,node.state&limit=200`,
      );
      const events = page.data as EventDto[];
      if (!events.some((e) => e.kind === 'node.state' && e.payload.to === end)) failed++;
      for (const gap of turnGaps(events)) {
        overheads.push(gap.ms);
        if (gap.after !== 'other') overheadsAfter[gap.after].push(gap.ms);
      }
    }
  }
  return { wallMs, lags, overheads, overheadsAfter, failed, ids, cpuPerNode, statusMs };
}

/** Until no broker holds a node (a parked node's broker has exited); bounded. */
export async function idle(daemon: BenchDaemon): Promise<void> {
  for (let i = 0; i < 6_000; i++) {
    const status = await daemon.call('/v1/status');
    if ((status.brokers as { active: number; queued?: number }).active === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('the daemon did not become idle');
}
