/**
 * `npm run bench:nodes`: nodes on real brokers, each figure beside a bare baseline measured in
 * the same run, and their ratio. Prints markdown tables.
 *
 * Turns: BENCH_NODES nodes (default 200), each three scripted turns (a bash call, a report, a
 * submit), BENCH_CONCURRENCY brokers at a time (default 8), watched by BENCH_WATCHERS event
 * streams (default 50), on a daemon that has run BENCH_WARMUP nodes (default 200) the same way
 * first: a daemon's first seconds also pay what it pays once (V8 compiling its code and its
 * host's, esbuild building the host bundle, the first host loading TypeScript), which its
 * figures while it runs do not; those first nodes' own overhead is printed apart (cold);
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
 * Paced, on the same daemon (BENCH_MODEL_MS, default 100; 0: none): the same BENCH_NODES nodes,
 * BENCH_CONCURRENCY at a time, their scripted model taking BENCH_MODEL_MS before each answer
 * (`delay_ms`), as a remote model takes its time to a first token (real ones take several times
 * that): overhead per turn (median, p99) and event lag. The run above has no model time at all,
 * so its 8 nodes keep 2 cores about 87% busy and each gap queues behind the others' work; here
 * the machine has room, and the gap is what svc costs a turn with 8 agents at work. Meanwhile
 * `GET /v1/status` is asked every 20 ms (median, p99): what a person's `svc status` waits while
 * they work ↔ the same asked of the daemon once idle, after the runs.
 *
 * One active node, on the same daemon: BENCH_ONE_NODES (default 100: 200 gaps, so a p99 is not
 * simply the largest of them) nodes of the same script,
 * each created once the one before is done, watched as above: overhead per turn (median, p99,
 * and the median after a bash turn apart from after a report turn) and event lag, against the
 * issue's one-active-node targets.
 *
 * For each run of nodes, the CPU each node cost the machine, by whom (`nodes-cpu.ts`: the daemon, its
 * agent hosts, this bench, the rest), and how long the daemon's and the hosts' main threads were
 * ready to run but waited for a CPU: on 2 cores, what the gaps of 8 active nodes are made of.
 *
 * Start-up, on the same daemon once it is idle (its spares warm), BENCH_STARTS nodes (default
 * 20) one after the other, each ↔ one bare `node -e ''` spawn (what a process of its own costs):
 * - first turn: create → the first turn started;
 * - wake: a node parked by `yield` (its broker gone) → a message → its next turn started;
 * then BENCH_WAKES (default 5) of each other wake: a parent parked on `wait` → its child's
 * outcome → the parent's next turn; a node parked on `ask_human` → the answer → its next turn.
 *
 * Footprint (`nodes-footprint.ts`; the process tree read from /proc, RSS and PSS):
 * - parked: a daemon of its own, warmed, its memory after a full GC with none
 *   parked and with BENCH_PARKED (default 1,000, or 100 with BENCH_FOOTPRINT=0) parked, the
 *   processes it still runs, its CPU over 5 s doing nothing ↔ one bare waiting Node process;
 * - active (unless BENCH_FOOTPRINT=0): 1 node, then BENCH_ACTIVE (default 50) at once, each in a
 *   long `sleep`, on daemons of concurrency 1 and BENCH_ACTIVE; added memory per additional
 *   active node, the commands apart ↔ as many bare waiting Node processes, and a bare `sleep`.
 *
 * Targets the issue sets are printed beside their figures, checked ✔ or ✘. The whole takes about
 * three minutes here; BENCH_QUICK=1 runs what comes before the footprint, and 100 parked, in one.
 *
 * Scale (unless BENCH_SCALE=0): a daemon of its own runs BENCH_SCALE_NODES
 * (default 1,000) nodes of the same three turns, BENCH_SCALE_CONCURRENCY (default 32) at a time,
 * one watcher; total wall time, overhead per turn, and the peak resident memory (RSS and PSS
 * sampled every 100 ms) of the daemon, of its brokers together (spares included) and of what
 * they run (sandboxes) ↔ bare spawns, the insert and notify, one bare waiting Node process (×
 * the peak count of brokers). Its nodes end parked (`yield`), and the daemon holding them is
 * then watched doing nothing: its memory, CPU time and broker processes left (its spares), then
 * after the spares' lull (30 s without a launch, at most a minute).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { bareMem, insertAndNotify, timedSpawns } from './nodes-baselines.ts';
import { type BenchDaemon, brokerStarts, startBenchDaemon } from './nodes-client.ts';
import {
  type ActiveFootprint,
  activeFootprint,
  leastMem,
  MEM_WINDOW_MS,
  parkedFootprint,
} from './nodes-footprint.ts';
import { cpuMs, hostsOf, sampleRss, type TreeMem } from './nodes-rss.ts';
import { fmt, pct, positive, row, table, target } from './nodes-stats.ts';
import { idle, probeStatus, runTurns } from './nodes-turns.ts';
import { runStartups } from './nodes-wake.ts';

const env = process.env;
const NODES = positive(env.BENCH_NODES, 200);
/** `BENCH_WARMUP=0`: none, the figures then those of a fresh daemon's first nodes. */
const WARMUP = env.BENCH_WARMUP === '0' ? 0 : positive(env.BENCH_WARMUP, 200);
const CONCURRENCY = positive(env.BENCH_CONCURRENCY, 8);
const WATCHERS = positive(env.BENCH_WATCHERS, 50);
const STARTS = positive(env.BENCH_STARTS, 20);
const ONE_NODES = positive(env.BENCH_ONE_NODES, 100);
/** The paced run's model time per turn (ms); `BENCH_MODEL_MS=0`: no paced run. */
const MODEL_MS = env.BENCH_MODEL_MS === '0' ? 0 : positive(env.BENCH_MODEL_MS, 100);
const WAKES = positive(env.BENCH_WAKES, 5);
/**
 * `BENCH_QUICK=1`: the runs of 200 nodes, the start-ups and 100 parked nodes only (about a
 * minute); by default also the active footprint, 1,000 parked and the scale run (about three),
 * each of which `BENCH_FOOTPRINT` and `BENCH_SCALE` (`1` or `0`) also turn on or off alone.
 */
const QUICK = env.BENCH_QUICK === '1';
const knob = (value: string | undefined) => (value === undefined ? !QUICK : value === '1');
const FOOTPRINT = knob(env.BENCH_FOOTPRINT);
const ACTIVE = Math.max(2, positive(env.BENCH_ACTIVE, 50));
/** Parking a node takes a broker launch and a turn: 1,000 take 15 s or so, so only with the footprint. */
const PARKED = positive(env.BENCH_PARKED, FOOTPRINT ? 1000 : 100);
const SCALE = knob(env.BENCH_SCALE);
const SCALE_NODES = positive(env.BENCH_SCALE_NODES, 1000);
const SCALE_CONCURRENCY = positive(env.BENCH_SCALE_CONCURRENCY, 32);
/** How often the paced run (and then the idle daemon) is asked `GET /v1/status` (ms). */
const PROBE_MS = 20;
/** How long a daemon holding parked nodes is watched doing nothing. */
const IDLE_S = 5;
/** The issue's targets (ms, MB). */
const TARGET = {
  overhead1: 5,
  overhead1p99: 20,
  overhead8: 15,
  lag50p99: 20,
  firstTurn: 50,
  wake: 50,
  addedPerActiveMb: 30,
  parkedMb: 5,
  idleCpuMs: 10,
};
/**
 * "No CPU while nothing happens": at most one clock tick (10 ms) over the idle seconds, or what
 * a bare Node process doing nothing was charged over the same seconds, when the busy machine
 * charged it more.
 */
const idleCpuMax = (bareMs: number) => Math.max(TARGET.idleCpuMs, bareMs);

const SCRIPT = [
  { tool_calls: [{ name: 'bash', input: { command: 'echo bench' } }] },
  { tool_calls: [{ name: 'report', input: { text: 'half way' } }] },
  { tool_calls: [{ name: 'submit', input: { summary: 'done' } }] },
];
/** The same turns from a model that takes MODEL_MS before each answer, as a remote one does. */
const PACED_SCRIPT = SCRIPT.map((turn) => ({ ...turn, delay_ms: MODEL_MS }));
/** The scale run's nodes end parked, so the daemon then holds 1,000 waiting nodes. */
const SCALE_SCRIPT = [
  SCRIPT[0]!,
  SCRIPT[1]!,
  { tool_calls: [{ name: 'yield', input: { reason: 'bench: parked' } }] },
];

// Short, in /tmp: unix socket paths are limited to about 104 bytes.
const homes: string[] = [];
const daemons: BenchDaemon[] = [];
const newHome = () => {
  const home = mkdtempSync('/tmp/svc-bench-nodes-');
  homes.push(home);
  return home;
};
const mb = (kb: number) => kb / 1024;
const print = (lines: string[]) => process.stdout.write(`${lines.join('\n')}\n`);

try {
  const home = newHome();
  const daemon = await startBenchDaemon(home, CONCURRENCY);
  daemons.push(daemon);
  const cold = WARMUP > 0 ? await runTurns(daemon, home, WARMUP, WATCHERS, SCRIPT, 'done') : null;
  const turns = await runTurns(daemon, home, NODES, WATCHERS, SCRIPT, 'done');
  const paced =
    MODEL_MS > 0
      ? await runTurns(daemon, home, NODES, WATCHERS, PACED_SCRIPT, 'done', {
          probeEveryMs: PROBE_MS,
        })
      : null;
  const startup = await runStartups(daemon, home, STARTS, WAKES);
  // The issue's one-active-node targets, on the same daemon: each node created once the one
  // before is done, watched as the run above.
  const one = await runTurns(daemon, home, ONE_NODES, WATCHERS, SCRIPT, 'done', { serial: true });
  await idle(daemon);
  const idleStatus = await probeStatus(daemon, PROBE_MS, () => true, 200);
  await daemon.stop();
  const starts = brokerStarts(join(home, 'svc.db'));

  const bareSpawns = await timedSpawns(20, 1);
  const bareWallMs = (await timedSpawns(NODES, CONCURRENCY)).wallMs;
  const bareNotify = insertAndNotify(join(home, 'bare.db'), WATCHERS, 200);
  const spawn50 = pct(bareSpawns.each, 50);
  // The issue's per-turn targets hold for one active node, and for 8 on 2 cores.
  const overheadMax =
    CONCURRENCY === 1 ? TARGET.overhead1 : CONCURRENCY <= 8 ? TARGET.overhead8 : undefined;
  const lagMax = WATCHERS <= 50 ? TARGET.lag50p99 : undefined;
  /** A run's overhead per turn (median, and p99 unless not `withP99`) and event lag p99. */
  const gapRows = (
    label: string,
    run: Awaited<ReturnType<typeof runTurns>>,
    max: { median?: number | undefined; p99?: number | undefined; lag?: number | undefined },
    withP99 = true,
  ) => [
    row(
      `${label}overhead per turn, median (ms)`,
      pct(run.overheads, 50),
      pct(bareNotify.step, 50),
      1,
      max.median,
    ),
    ...(withP99
      ? [
          row(
            `${label}overhead per turn, p99 (ms)`,
            pct(run.overheads, 99),
            pct(bareNotify.step, 99),
            1,
            max.p99,
          ),
        ]
      : []),
    row(
      `${label}event lag to ${WATCHERS} watchers, p99 (ms)`,
      pct(run.lags, 99),
      pct(bareNotify.lag, 99),
      1,
      max.lag,
    ),
  ];
  print([
    `# svc nodes benchmark (${NODES} nodes × 3 scripted turns, ${CONCURRENCY} brokers at a time, ${WATCHERS} stream watchers, Node ${process.versions.node})`,
    '',
    ...(cold === null
      ? []
      : [
          `First ${WARMUP - cold.failed} of ${WARMUP} nodes done on the fresh daemon (its warm-up, measured apart: cold); then:`,
        ]),
    `${NODES - turns.failed} of ${NODES} nodes done; ${turns.overheads.length} turn gaps, ${turns.lags.length} event deliveries measured;${paced === null ? '' : ` then ${NODES - paced.failed} of ${NODES} paced (their model ${MODEL_MS} ms a turn);`} then ${ONE_NODES - one.failed} of ${ONE_NODES} one at a time (${one.overheads.length} gaps); ${startup.first.length} first turns, ${startup.wake.length} wakes by a message, ${startup.child.length} by a child's outcome, ${startup.human.length} by an answer.`,
    '',
    ...table([
      row('total wall time (s)', turns.wallMs / 1000, bareWallMs / 1000, 1),
      row('broker start, median (ms)', pct(starts, 50), spawn50, 0),
      row('broker start, p99 (ms)', pct(starts, 99), pct(bareSpawns.each, 99), 0),
      ...gapRows('', turns, {
        median: overheadMax,
        p99: CONCURRENCY === 1 ? TARGET.overhead1p99 : undefined,
        lag: lagMax,
      }),
      ...(paced === null
        ? []
        : gapRows(`paced (the model ${MODEL_MS} ms a turn): `, paced, {
            median: overheadMax,
            lag: lagMax,
          })),
      ...(paced === null
        ? []
        : [50, 99].map((p) =>
            row(
              `paced: \`GET /v1/status\` meanwhile, p${p} (ms)`,
              pct(paced.statusMs, p),
              pct(idleStatus, p),
              1,
            ),
          )),
      ...(cold === null ? [] : gapRows("cold: a fresh daemon's first nodes, ", cold, {}, false)),
      row(
        'one active node: overhead per turn, median (ms)',
        pct(one.overheads, 50),
        pct(bareNotify.step, 50),
        1,
        TARGET.overhead1,
      ),
      row(
        'one active node: overhead per turn, p99 (ms)',
        pct(one.overheads, 99),
        pct(bareNotify.step, 99),
        1,
        TARGET.overhead1p99,
      ),
      row(
        'one active node: overhead per turn after a bash turn, median (ms)',
        pct(one.overheadsAfter.bash, 50),
        pct(bareNotify.step, 50),
        1,
      ),
      row(
        'one active node: overhead per turn after a report turn, median (ms)',
        pct(one.overheadsAfter.report, 50),
        pct(bareNotify.step, 50),
        1,
      ),
      row(
        `one active node: event lag to ${WATCHERS} watchers, p99 (ms)`,
        pct(one.lags, 99),
        pct(bareNotify.lag, 99),
        1,
        lagMax,
      ),
      row(
        'idle daemon: create → first turn, median (ms)',
        pct(startup.first, 50),
        spawn50,
        0,
        TARGET.firstTurn,
      ),
      row('idle daemon: create → first turn, p99 (ms)', pct(startup.first, 99), spawn50, 0),
      row(
        'parked node: message → next turn, median (ms)',
        pct(startup.wake, 50),
        spawn50,
        0,
        TARGET.wake,
      ),
      row('parked node: message → next turn, p99 (ms)', pct(startup.wake, 99), spawn50, 0),
      row(
        "parked parent: child's outcome → next turn, median (ms)",
        pct(startup.child, 50),
        spawn50,
        0,
        TARGET.wake,
      ),
      row(
        'parked asker: answer → next turn, median (ms)',
        pct(startup.human, 50),
        spawn50,
        0,
        TARGET.wake,
      ),
    ]),
    '',
    ...cpuLines(`the ${NODES} nodes, ${CONCURRENCY} at a time`, turns.cpuPerNode),
    ...(paced === null
      ? []
      : cpuLines(`the ${NODES} paced nodes, ${CONCURRENCY} at a time`, paced.cpuPerNode)),
    ...cpuLines(`the ${ONE_NODES} nodes one at a time`, one.cpuPerNode),
    ...(env.BENCH_VERBOSE ? [`Broker starts in launch order (ms): ${starts.join(' ')}`, ''] : []),
    "Baselines: wall time, broker start, first turn and wakes ↔ bare `node -e ''` spawns (the same number, as many at a time; median);",
    'overhead per turn and event lag ↔ one durable SQLite insert (WAL, synchronous=FULL) plus an in-process notify;',
    `\`GET /v1/status\` meanwhile (asked every ${PROBE_MS} ms, as a person's \`svc status\` waits) ↔ the same asked of the daemon once idle.`,
    '',
  ]);

  await footprint();

  if (SCALE) await scale();
} finally {
  for (const d of daemons) if (d.child.exitCode === null) d.child.kill('SIGKILL');
  for (const home of homes) rmSync(home, { recursive: true, force: true });
}

/**
 * Where the machine's CPU went during a run, per node (`nodes-cpu.ts`), and how long the main
 * threads waited for a CPU: with 8 active nodes, most of a gap is such a wait, queued behind the
 * CPU the first sentence splits.
 */
function cpuLines(run: string, c: Awaited<ReturnType<typeof runTurns>>['cpuPerNode']): string[] {
  const ms = (v: number) => fmt(v, 1);
  return [
    `CPU per node during ${run} (ms): the machine ${ms(c.machine)} = daemon ${ms(c.daemon)} + agent hosts ${ms(c.hosts)} + this bench ${ms(c.bench)} (its ${WATCHERS} watchers and its calls) + the rest ${ms(c.rest)} (the sandboxes: bubblewrap, executors, commands; kernel threads). Main threads ready to run but waiting for a CPU, per node (ms): the daemon's ${ms(c.daemonWait)}, the hosts' ${ms(c.hostsWait)}.`,
    '',
  ];
}

/**
 * Footprint: what parked nodes cost the daemon; unless BENCH_FOOTPRINT=0, also what
 * each additional active node costs, 1 against BENCH_ACTIVE (50) at once.
 */
async function footprint() {
  const t0 = performance.now();
  const parked = await parkedFootprint(newHome(), PARKED, CONCURRENCY, IDLE_S);
  const parkedS = (performance.now() - t0) / 1000;
  const bareNode = await bareMem(1, 'node');
  const addedRss = mb(parked.parked.rssKb - parked.none.rssKb);
  const addedPss = mb(parked.parked.pssKb - parked.none.pssKb);
  print([
    `# Footprint of parked nodes (${PARKED} nodes parked by \`yield\`, ${CONCURRENCY} brokers at a time; ${fmt(parkedS, 0)} s in all)`,
    '',
    `${PARKED} nodes created and parked in ${fmt(parked.parkMs / 1000, 1)} s; the daemon's memory read after ${parked.heapNone.gc ? 'a full GC' : 'no GC (none exposed)'}, the least over ${fmt(MEM_WINDOW_MS / 1000, 0)} s (the daemon's quiet spell, after which it releases what a burst left resident, and 2 s more).`,
    '',
    ...table([
      row('daemon, none parked: PSS (MB)', mb(parked.none.pssKb), mb(bareNode.pssKb), 0),
      row('daemon, none parked: RSS (MB)', mb(parked.none.rssKb), mb(bareNode.rssKb), 0),
      row(`daemon, ${PARKED} parked: PSS (MB)`, mb(parked.parked.pssKb), mb(bareNode.pssKb), 0),
      row(`daemon, ${PARKED} parked: RSS (MB)`, mb(parked.parked.rssKb), mb(bareNode.rssKb), 0),
      [
        `added by ${PARKED} parked nodes: PSS (MB)`,
        fmt(addedPss, 1),
        '0.00',
        '',
        // The issue's figure is for 1,000; below that the noise outweighs what it checks.
        PARKED >= 1000 ? `≤ ${TARGET.parkedMb} ${target(addedPss, TARGET.parkedMb)}` : '',
      ],
      [`added by ${PARKED} parked nodes: RSS (MB)`, fmt(addedRss, 1), '0.00', '', ''],
      [
        "of which the daemon's V8 heap in use / committed / external (MB)",
        (['heapUsed', 'heapTotal', 'external'] as const)
          .map((k) => fmt(mb((parked.heapParked[k] - parked.heapNone[k]) / 1024), 1))
          .join(' / '),
        '0.00',
        '',
        '',
      ],
      [
        `hosts (brokers, spares) with none / ${PARKED} parked`,
        `${parked.hostsNone} / ${parked.hostsParked}`,
        '0',
        '',
        `≤ ${parked.hostsNone} ${parked.hostsParked <= parked.hostsNone ? '✔' : '✘'}`,
      ],
      row(`other processes below the daemon, ${PARKED} parked`, parked.othersParked, 0, 0, 0),
      row(
        `daemon CPU over ${IDLE_S} s with nothing happening (ms)`,
        parked.cpuMs,
        parked.bareCpuMs,
        0,
        idleCpuMax(parked.bareCpuMs),
      ),
    ]),
    '',
    "Baselines: memory ↔ one bare waiting `node -e` process; CPU ↔ a bare waiting Node process's over the same seconds. A waiting node must hold no process: the hosts left are the daemon's spares (as many as with none parked), and nothing else.",
    '',
  ]);

  if (!FOOTPRINT) return;
  let one: ActiveFootprint;
  let many: ActiveFootprint;
  try {
    one = await activeFootprint(newHome(), 1, 3000);
    many = await activeFootprint(newHome(), ACTIVE, 3000);
  } catch (error) {
    print([`# Footprint of active nodes: not measured (${(error as Error).message})`, '']);
    return;
  }
  const bareOne = await bareMem(1, 'node');
  const bareMany = await bareMem(ACTIVE, 'node');
  const bareSleep = await bareMem(1, 'sleep');
  const perNode = (key: 'rssKb' | 'pssKb', a: TreeMem, b: TreeMem) =>
    mb(treeTotal(b, key) - treeTotal(a, key)) / (ACTIVE - 1);
  const barePer = (key: 'rssKb' | 'pssKb') => mb(bareMany[key] - bareOne[key]) / (ACTIVE - 1);
  const addedPssPer = perNode('pssKb', one.busy, many.busy);
  const cmdPer = (key: 'rssKb' | 'pssKb') => mb(many.busy.commands[key]) / ACTIVE;
  print([
    `# Footprint of active nodes (1 and ${ACTIVE} at once, each in \`sleep\`; a daemon of concurrency 1, then one of ${ACTIVE})`,
    '',
    `All ${ACTIVE} in their command ${fmt(many.inFlightMs / 1000, 1)} s after the first create; ${many.samples} samples while all were (the highest PSS kept).`,
    '',
    ...table([
      row(
        'added per additional active node: PSS (MB)',
        addedPssPer,
        barePer('pssKb'),
        1,
        TARGET.addedPerActiveMb,
      ),
      row(
        'added per additional active node: RSS (MB)',
        perNode('rssKb', one.busy, many.busy),
        barePer('rssKb'),
        1,
      ),
      row(
        '1 active, whole tree less its command: PSS (MB)',
        mb(treeTotal(one.busy, 'pssKb')),
        mb(bareOne.pssKb),
        0,
      ),
      row(
        `${ACTIVE} active, whole tree less commands: PSS (MB)`,
        mb(treeTotal(many.busy, 'pssKb')),
        mb(bareMany.pssKb),
        0,
      ),
      row(
        '1 active, whole tree less its command: RSS (MB)',
        mb(treeTotal(one.busy, 'rssKb')),
        mb(bareOne.rssKb),
        0,
      ),
      row(
        `${ACTIVE} active, whole tree less commands: RSS (MB)`,
        mb(treeTotal(many.busy, 'rssKb')),
        mb(bareMany.rssKb),
        0,
      ),
      row(
        'a command (`sleep` and its shell), each: PSS (MB)',
        cmdPer('pssKb'),
        mb(bareSleep.pssKb),
        2,
      ),
      row(
        'a command (`sleep` and its shell), each: RSS (MB)',
        cmdPer('rssKb'),
        mb(bareSleep.rssKb),
        2,
      ),
    ]),
    '',
    'Where it is (MB, PSS / RSS; processes):',
    '',
    '| part | idle daemon | 1 active | ' + `${ACTIVE} active |`,
    '| --- | ---: | ---: | ---: |',
    ...(['daemon', 'hosts', 'sandboxes', 'commands'] as const).map(
      (part) =>
        `| ${part} | ${[one.idle, one.busy, many.busy].map((t) => partCell(t, part)).join(' | ')} |`,
    ),
    '',
    `Baselines: per additional node ↔ (${ACTIVE} bare waiting \`node -e\` processes − 1) ÷ ${ACTIVE - 1}, measured the same way; the whole trees ↔ 1 and ${ACTIVE} such processes; a command ↔ one bare \`sleep\`.`,
    `The target is judged on PSS: it divides shared pages (the Node binary's text, shared libraries) among the processes that map them, so it adds up to what the machine pays; RSS counts them once per process.${many.busy.unreadable + one.busy.unreadable > 0 ? ` (${many.busy.unreadable + one.busy.unreadable} processes' smaps_rollup unreadable: their PSS counts 0.)` : ''}`,
    '',
  ]);
}

/** The tree's memory less its commands (the work, shown apart). */
function treeTotal(t: TreeMem, key: 'rssKb' | 'pssKb'): number {
  return t.daemon[key] + t.hosts[key] + t.sandboxes[key];
}

function partCell(t: TreeMem, part: 'daemon' | 'hosts' | 'sandboxes' | 'commands'): string {
  const count =
    part === 'daemon'
      ? 1
      : part === 'hosts'
        ? t.hostCount
        : part === 'sandboxes'
          ? t.sandboxCount
          : t.commandCount;
  return `${fmt(mb(t[part].pssKb), 0)} / ${fmt(mb(t[part].rssKb), 0)}; ${count}`;
}

/** Unless BENCH_SCALE=0: many nodes, many at a time, on a daemon of their own. */
async function scale() {
  const scaleHome = newHome();
  const big = await startBenchDaemon(scaleHome, SCALE_CONCURRENCY);
  daemons.push(big);
  const sampler = sampleRss(big.child.pid!);
  const scaled = await runTurns(big, scaleHome, SCALE_NODES, 1, SCALE_SCRIPT, 'waiting');
  const peaks = await sampler.stop();
  const parked = await idleCost(big);
  await big.stop();
  const bareWall = (await timedSpawns(SCALE_NODES, SCALE_CONCURRENCY)).wallMs;
  const notify = insertAndNotify(join(scaleHome, 'bare.db'), 1, 200);
  const bare = await bareMem(1, 'node');
  const bareKb = bare.rssKb;
  print([
    `# svc at scale (${SCALE_NODES} nodes × 3 scripted turns, ${SCALE_CONCURRENCY} brokers at a time, 1 watcher)`,
    '',
    `${SCALE_NODES - scaled.failed} of ${SCALE_NODES} nodes parked; ${scaled.overheads.length} turn gaps; at most ${peaks.brokers} broker processes at once (spares included).`,
    '',
    ...table([
      row('total wall time (s)', scaled.wallMs / 1000, bareWall / 1000, 1),
      row('overhead per turn, median (ms)', pct(scaled.overheads, 50), pct(notify.step, 50), 1),
      row('overhead per turn, p99 (ms)', pct(scaled.overheads, 99), pct(notify.step, 99), 1),
      row('peak RSS, daemon (MB)', mb(peaks.daemonKb), mb(bareKb), 0),
      row('peak PSS, daemon (MB)', mb(peaks.daemonPssKb), mb(bare.pssKb), 0),
      row('peak RSS, brokers together (MB)', mb(peaks.brokersKb), mb(bareKb * peaks.brokers), 0),
      row(
        'peak PSS, brokers together (MB)',
        mb(peaks.brokersPssKb),
        mb(bare.pssKb * peaks.brokers),
        0,
      ),
      row(
        'peak RSS, their sandboxes together (MB)',
        mb(peaks.sandboxesKb),
        mb(bareKb * SCALE_CONCURRENCY),
        0,
      ),
      row(
        'peak PSS, their sandboxes together (MB)',
        mb(peaks.sandboxesPssKb),
        mb(bare.pssKb * SCALE_CONCURRENCY),
        0,
      ),
      row(`RSS, daemon holding ${SCALE_NODES} parked nodes (MB)`, mb(parked.rssKb), mb(bareKb), 0),
      row(
        `PSS, daemon holding ${SCALE_NODES} parked nodes (MB)`,
        mb(parked.pssKb),
        mb(bare.pssKb),
        0,
      ),
      row(
        `CPU of that daemon over ${IDLE_S} s with nothing happening (ms)`,
        parked.cpuMs,
        parked.bareCpuMs,
        0,
        idleCpuMax(parked.bareCpuMs),
      ),
      row('broker processes left with the nodes parked (spares)', parked.brokers, 0, 0),
      row("broker processes left after the spares' lull", parked.brokersAfterLull, 0, 0),
    ]),
    '',
    `Baselines: wall time ↔ ${SCALE_NODES} bare \`node -e ''\` spawns, ${SCALE_CONCURRENCY} at a time; overhead ↔ the insert and notify;`,
    `resident memory ↔ one bare waiting Node process (${fmt(mb(bareKb), 0)} MB RSS, ${fmt(mb(bare.pssKb), 0)} MB PSS), × the peak broker count for brokers and × ${SCALE_CONCURRENCY} for sandboxes.`,
    '',
  ]);
}

/**
 * What a daemon whose nodes are all parked costs while nothing happens: its least RSS and PSS
 * over its quiet spell and 2 s more (`leastMem`), then its CPU time over `IDLE_S` seconds (from /proc/<pid>/stat) beside a bare waiting Node process's over the
 * same seconds, and how many broker processes it still runs (spares), then once the spares'
 * lull (30 s without a launch) has stopped all but one (waited for a minute at most).
 */
async function idleCost(daemon: BenchDaemon) {
  await idle(daemon);
  await daemon.gc();
  const pid = daemon.child.pid!;
  // Past the daemon's quiet spell: what it gives back then is the run's tail, not its idle cost.
  const held = await leastMem(pid);
  const bare = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1e6)'], { stdio: 'ignore' });
  const before = [cpuMs(pid), cpuMs(bare.pid!)] as const;
  await new Promise((resolve) => setTimeout(resolve, IDLE_S * 1000));
  const cost = {
    rssKb: held.rssKb,
    pssKb: held.pssKb,
    cpuMs: cpuMs(pid) - before[0],
    bareCpuMs: cpuMs(bare.pid!) - before[1],
    brokers: hostsOf(pid).length,
    /** After the supervisor's lull (30 s without a launch): its spares but one stopped. */
    brokersAfterLull: 0,
  };
  bare.kill('SIGKILL');
  for (let i = 0; i < 600 && hostsOf(pid).length > 1; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  cost.brokersAfterLull = hostsOf(pid).length;
  return cost;
}
