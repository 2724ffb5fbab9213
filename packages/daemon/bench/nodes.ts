/**
 * `npm run bench:nodes`: nodes on real brokers, each figure beside a bare baseline measured in
 * the same run, and their ratio. Prints markdown tables.
 *
 * Turns: BENCH_NODES nodes (default 200), each three scripted turns (a bash call, a report, a
 * submit), BENCH_CONCURRENCY brokers at a time (default 8), watched by BENCH_WATCHERS event
 * streams (default 50):
 * - total wall time, create to the last outcome ↔ BENCH_NODES bare `node -e ''` spawns, the
 *   same number at a time;
 * - broker start (launch → `broker.claim` answered: a warm spare started before it is handed
 *   its node, so its own start counts only when no spare was ready) ↔ one bare `node -e ''`
 *   spawn to its exit (BENCH_VERBOSE=1 also prints each start in launch order);
 * - daemon + broker overhead per turn (a turn's end → the next turn's start, minus the bash
 *   command's own time: recording the turn, the tool call's records, claiming mail, the next
 *   prompt) ↔ one durable SQLite insert plus an in-process notify, the least a recorded step costs;
 * - event delivery lag to every stream watcher (`created_at` → received) ↔ the same insert and
 *   notify to as many in-process listeners.
 *
 * Start-up, on the same daemon once it is idle (its spares warm), BENCH_STARTS nodes (default
 * 20) one after the other, each ↔ one bare `node -e ''` spawn (what a process of its own costs):
 * - first turn: create → the first turn started;
 * - wake: a node parked by `yield` (its broker gone) → a message → its next turn started.
 *
 * Scale (BENCH_SCALE=1; slow, so not by default): a daemon of its own runs BENCH_SCALE_NODES
 * (default 1,000) nodes of the same three turns, BENCH_SCALE_CONCURRENCY (default 32) at a time,
 * one watcher; total wall time, overhead per turn, and the peak resident memory (VmRSS sampled
 * every 100 ms) of the daemon, of its brokers together (spares included) and of what they run
 * (sandboxes) ↔ bare spawns, the insert and notify, one bare waiting Node process (× the peak
 * count of brokers). Its nodes end parked (`yield`), and the daemon holding them is then watched
 * doing nothing: its RSS, CPU time and broker processes left (its spares), then after the spares'
 * lull (30 s without a launch, at most a minute).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { bareNodeRssKb, insertAndNotify, timedSpawns } from './nodes-baselines.ts';
import {
  type BenchDaemon,
  brokerStarts,
  type EventDto,
  startBenchDaemon,
  turnOverheads,
  watch,
} from './nodes-client.ts';
import { childrenOf, cpuMs, rssKb, sampleRss } from './nodes-rss.ts';
import { fmt, pct, positive, row, table } from './nodes-stats.ts';

const env = process.env;
const NODES = positive(env.BENCH_NODES, 200);
const CONCURRENCY = positive(env.BENCH_CONCURRENCY, 8);
const WATCHERS = positive(env.BENCH_WATCHERS, 50);
const STARTS = positive(env.BENCH_STARTS, 20);
const SCALE = env.BENCH_SCALE === '1';
const SCALE_NODES = positive(env.BENCH_SCALE_NODES, 1000);
const SCALE_CONCURRENCY = positive(env.BENCH_SCALE_CONCURRENCY, 32);
/** How long the daemon holding the scale run's parked nodes is watched doing nothing. */
const IDLE_S = 5;
/** Bounds every wait of the bench: a run that hangs ends with what it has. */
const TIMEOUT_MS = 30 * 60_000;

const SCRIPT = [
  { tool_calls: [{ name: 'bash', input: { command: 'echo bench' } }] },
  { tool_calls: [{ name: 'report', input: { text: 'half way' } }] },
  { tool_calls: [{ name: 'submit', input: { summary: 'done' } }] },
];
/** The scale run's nodes end parked, so the daemon then holds 1,000 waiting nodes. */
const SCALE_SCRIPT = [
  SCRIPT[0]!,
  SCRIPT[1]!,
  { tool_calls: [{ name: 'yield', input: { reason: 'bench: parked' } }] },
];
const PARKING_SCRIPT = [
  { tool_calls: [{ name: 'yield', input: { reason: 'bench: parked until woken' } }] },
  { tool_calls: [{ name: 'submit', input: { summary: 'woken' } }] },
];

// Short, in /tmp: unix socket paths are limited to about 104 bytes.
const homes: string[] = [];
const daemons: BenchDaemon[] = [];
const newHome = () => {
  const home = mkdtempSync('/tmp/svc-bench-nodes-');
  homes.push(home);
  return home;
};
const out: string[] = [];

try {
  const home = newHome();
  const daemon = await startBenchDaemon(home, CONCURRENCY);
  daemons.push(daemon);
  const turns = await runTurns(daemon, home, NODES, WATCHERS, SCRIPT, 'done');
  const startup = await runStartups(daemon, home, STARTS);
  await daemon.stop();
  const starts = brokerStarts(join(home, 'svc.db'));

  const bareSpawns = await timedSpawns(20, 1);
  const bareWallMs = (await timedSpawns(NODES, CONCURRENCY)).wallMs;
  const bareNotify = insertAndNotify(join(home, 'bare.db'), WATCHERS, 200);
  const spawn50 = pct(bareSpawns.each, 50);
  out.push(
    `# svc nodes benchmark (${NODES} nodes × 3 scripted turns, ${CONCURRENCY} brokers at a time, ${WATCHERS} stream watchers, Node ${process.versions.node})`,
    '',
    `${NODES - turns.failed} of ${NODES} nodes done; ${turns.overheads.length} turn gaps, ${turns.lags.length} event deliveries measured; ${startup.first.length} first turns and ${startup.wake.length} wakes.`,
    '',
    ...table([
      row('total wall time (s)', turns.wallMs / 1000, bareWallMs / 1000, 1),
      row('broker start, median (ms)', pct(starts, 50), spawn50, 0),
      row('broker start, p99 (ms)', pct(starts, 99), pct(bareSpawns.each, 99), 0),
      row('overhead per turn, median (ms)', pct(turns.overheads, 50), pct(bareNotify.step, 50), 1),
      row('overhead per turn, p99 (ms)', pct(turns.overheads, 99), pct(bareNotify.step, 99), 1),
      row(
        `event lag to ${WATCHERS} watchers, p99 (ms)`,
        pct(turns.lags, 99),
        pct(bareNotify.lag, 99),
        1,
      ),
      row('idle daemon: create → first turn, median (ms)', pct(startup.first, 50), spawn50, 0),
      row('idle daemon: create → first turn, p99 (ms)', pct(startup.first, 99), spawn50, 0),
      row('parked node: message → next turn, median (ms)', pct(startup.wake, 50), spawn50, 0),
      row('parked node: message → next turn, p99 (ms)', pct(startup.wake, 99), spawn50, 0),
    ]),
    '',
    ...(env.BENCH_VERBOSE ? [`Broker starts in launch order (ms): ${starts.join(' ')}`, ''] : []),
    "Baselines: wall time, broker start, first turn and wake ↔ bare `node -e ''` spawns (the same number, as many at a time; median);",
    'overhead per turn and event lag ↔ one durable SQLite insert (WAL, synchronous=FULL) plus an in-process notify.',
    '',
  );
  process.stdout.write(`${out.join('\n')}\n`);
  out.length = 0;

  if (SCALE) {
    const scaleHome = newHome();
    const big = await startBenchDaemon(scaleHome, SCALE_CONCURRENCY);
    daemons.push(big);
    const sampler = sampleRss(big.child.pid!);
    const scaled = await runTurns(big, scaleHome, SCALE_NODES, 1, SCALE_SCRIPT, 'waiting');
    const peaks = sampler.stop();
    const parked = await idleCost(big);
    await big.stop();
    const bareWall = (await timedSpawns(SCALE_NODES, SCALE_CONCURRENCY)).wallMs;
    const notify = insertAndNotify(join(scaleHome, 'bare.db'), 1, 200);
    const bareKb = await bareNodeRssKb();
    const mb = (kb: number) => kb / 1024;
    process.stdout.write(
      `${[
        `# svc at scale (${SCALE_NODES} nodes × 3 scripted turns, ${SCALE_CONCURRENCY} brokers at a time, 1 watcher)`,
        '',
        `${SCALE_NODES - scaled.failed} of ${SCALE_NODES} nodes parked; ${scaled.overheads.length} turn gaps; at most ${peaks.brokers} broker processes at once (spares included).`,
        '',
        ...table([
          row('total wall time (s)', scaled.wallMs / 1000, bareWall / 1000, 1),
          row('overhead per turn, median (ms)', pct(scaled.overheads, 50), pct(notify.step, 50), 1),
          row('overhead per turn, p99 (ms)', pct(scaled.overheads, 99), pct(notify.step, 99), 1),
          row('peak RSS, daemon (MB)', mb(peaks.daemonKb), mb(bareKb), 0),
          row(
            'peak RSS, brokers together (MB)',
            mb(peaks.brokersKb),
            mb(bareKb * peaks.brokers),
            0,
          ),
          row(
            'peak RSS, their sandboxes together (MB)',
            mb(peaks.sandboxesKb),
            mb(bareKb * SCALE_CONCURRENCY),
            0,
          ),
          row(
            `RSS, daemon holding ${SCALE_NODES} parked nodes (MB)`,
            mb(parked.rssKb),
            mb(bareKb),
            0,
          ),
          row(
            `CPU of that daemon over ${IDLE_S} s with nothing happening (ms)`,
            parked.cpuMs,
            parked.bareCpuMs,
            0,
          ),
          row('broker processes left with the nodes parked (spares)', parked.brokers, 0, 0),
          row("broker processes left after the spares' lull", parked.brokersAfterLull, 0, 0),
        ]),
        '',
        `Baselines: wall time ↔ ${SCALE_NODES} bare \`node -e ''\` spawns, ${SCALE_CONCURRENCY} at a time; overhead ↔ the insert and notify;`,
        `resident memory ↔ one bare waiting Node process (${fmt(mb(bareKb), 0)} MB), × the peak broker count for brokers and × ${SCALE_CONCURRENCY} for sandboxes.`,
        '',
      ].join('\n')}\n`,
    );
  }
} finally {
  for (const d of daemons) if (d.child.exitCode === null) d.child.kill('SIGKILL');
  for (const home of homes) rmSync(home, { recursive: true, force: true });
}

/**
 * Creates `count` nodes of `script` and waits until each has reached `end` (its state); then
 * reads back their turns.
 */
async function runTurns(
  daemon: BenchDaemon,
  home: string,
  count: number,
  watchers: number,
  script: readonly unknown[],
  end: 'done' | 'waiting',
) {
  const lags: number[] = [];
  let outcomes = 0;
  let allDone: () => void = () => {};
  const finished = new Promise<void>((resolve) => {
    allDone = resolve;
  });
  const watchedFrom = Date.now();
  // Watchers first: every event of the run reaches each of them.
  const streams = Array.from({ length: watchers }, (_, i) =>
    watch(daemon, home, (event, at) => {
      // The backlog (events from before the watchers connected) is not a delivery lag.
      if (Date.parse(event.created_at) >= watchedFrom) lags.push(at - Date.parse(event.created_at));
      const ended = event.kind === 'node.state' && event.payload.to === end;
      if (i === 0 && ended && ++outcomes === count) allDone();
    }),
  );
  await Promise.all(streams.map((s) => s.ready));

  const t0 = performance.now();
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const node = await daemon.call('/v1/nodes', {
      method: 'POST',
      body: {
        task: `bench node ${i}`,
        scopes: ['svc:llm', 'svc:act'],
        model: { provider: 'scripted', model: 'bench', script },
      },
    });
    ids.push(node.id as string);
  }
  const timeout = setTimeout(() => allDone(), TIMEOUT_MS);
  await finished;
  clearTimeout(timeout);
  const wallMs = performance.now() - t0;
  for (const s of streams) s.close();

  const overheads: number[] = [];
  let failed = 0;
  for (const id of ids) {
    const page = await daemon.call(
      `/v1/nodes/${id}/events?kinds=node.turn,node.tool,node.state&limit=200`,
    );
    const events = page.data as EventDto[];
    if (!events.some((e) => e.kind === 'node.state' && e.payload.to === end)) failed++;
    overheads.push(...turnOverheads(events));
  }
  return { wallMs, lags, overheads, failed };
}

/**
 * `count` nodes one after the other, each on an idle daemon: create → its first turn started;
 * then, once it is parked (`yield`) and its broker gone, a message → its next turn started.
 */
async function runStartups(daemon: BenchDaemon, home: string, count: number) {
  // Every event of the current node, so one that came before its waiter is found too.
  const seen: EventDto[] = [];
  const waiters = new Set<(e: EventDto) => void>();
  const stream = watch(daemon, home, (event) => {
    seen.push(event);
    for (const waiter of waiters) waiter(event);
  });
  await stream.ready;
  const next = (match: (e: EventDto) => boolean) =>
    new Promise<EventDto>((resolve, reject) => {
      const found = seen.find(match);
      if (found !== undefined) return resolve(found);
      const timer = setTimeout(() => reject(new Error('no such event in time')), TIMEOUT_MS);
      const waiter = (e: EventDto) => {
        if (!match(e)) return;
        clearTimeout(timer);
        waiters.delete(waiter);
        resolve(e);
      };
      waiters.add(waiter);
    });
  const startedAt = (e: EventDto) =>
    Date.parse((e.payload.turn as { started_at: string }).started_at);
  const turnOf = (id: string, index: number) => (e: EventDto) =>
    e.subject_id === id &&
    e.kind === 'node.turn' &&
    (e.payload.turn as { index: number }).index === index;

  const first: number[] = [];
  const wake: number[] = [];
  for (let i = 0; i < count; i++) {
    await idle(daemon);
    seen.length = 0;
    const t0 = Date.now();
    const created = await daemon.call('/v1/nodes', {
      method: 'POST',
      body: {
        task: `bench start ${i}`,
        scopes: ['svc:llm', 'svc:act'],
        model: { provider: 'scripted', model: 'bench', script: PARKING_SCRIPT },
      },
    });
    const id = created.id as string;
    first.push(startedAt(await next(turnOf(id, 1))) - t0);
    await next((e) => e.subject_id === id && e.kind === 'node.state' && e.payload.to === 'waiting');
    await idle(daemon);
    const t1 = Date.now();
    await daemon.call(`/v1/nodes/${id}/messages`, { method: 'POST', body: { text: 'wake up' } });
    wake.push(startedAt(await next(turnOf(id, 2))) - t1);
    await next((e) => e.subject_id === id && e.kind === 'node.outcome');
  }
  stream.close();
  return { first, wake };
}

/**
 * What a daemon whose nodes are all parked costs while nothing happens: its RSS, its CPU time
 * over `IDLE_S` seconds (from /proc/<pid>/stat) beside a bare waiting Node process's over the
 * same seconds, and how many broker processes it still runs (spares), then once the spares'
 * lull (30 s without a launch) has stopped all but one (waited for a minute at most).
 */
async function idleCost(daemon: BenchDaemon) {
  await idle(daemon);
  const pid = daemon.child.pid!;
  const bare = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1e6)'], { stdio: 'ignore' });
  const before = [cpuMs(pid), cpuMs(bare.pid!)] as const;
  await new Promise((resolve) => setTimeout(resolve, IDLE_S * 1000));
  const cost = {
    rssKb: rssKb(pid),
    cpuMs: cpuMs(pid) - before[0],
    bareCpuMs: cpuMs(bare.pid!) - before[1],
    brokers: brokersOf(pid).length,
    /** After the supervisor's lull (30 s without a launch): its spares but one stopped. */
    brokersAfterLull: 0,
  };
  bare.kill('SIGKILL');
  for (let i = 0; i < 600 && brokersOf(pid).length > 1; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  cost.brokersAfterLull = brokersOf(pid).length;
  return cost;
}

/** The daemon's broker processes (spares, with no node parked on any); not esbuild's service. */
function brokersOf(pid: number): number[] {
  return childrenOf(pid).filter((child) => {
    try {
      return /broker\/main\.ts|\/cache\/broker-/.test(
        readFileSync(`/proc/${child}/cmdline`, 'utf8'),
      );
    } catch {
      return false;
    }
  });
}

/** Until no broker holds a node (a parked node's broker has exited); bounded. */
async function idle(daemon: BenchDaemon): Promise<void> {
  for (let i = 0; i < 2_000; i++) {
    const status = await daemon.call('/v1/status');
    if ((status.brokers as { active: number }).active === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('the daemon did not become idle');
}
