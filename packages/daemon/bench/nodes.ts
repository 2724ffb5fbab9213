/**
 * `npm run bench:nodes`: nodes on real brokers, each figure beside a bare baseline measured in
 * the same run, and their ratio. BENCH_NODES nodes (default 200), each three scripted turns (a
 * bash call, a report, a submit), BENCH_CONCURRENCY brokers at a time (default 8), watched by
 * BENCH_WATCHERS event streams (default 50). Prints a markdown table.
 *
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
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { DatabaseSync } from 'node:sqlite';
import { Agent, fetch } from 'undici';

const NODES = positive(process.env.BENCH_NODES, 200);
const CONCURRENCY = positive(process.env.BENCH_CONCURRENCY, 8);
const WATCHERS = positive(process.env.BENCH_WATCHERS, 50);
const TIMEOUT_MS = 30 * 60_000;
const here = import.meta.dirname;
// Short, in /tmp: unix socket paths are limited to about 104 bytes.
const home = mkdtempSync('/tmp/svc-bench-nodes-');
let daemon: ChildProcess | undefined;

interface EventDto {
  seq: number;
  kind: string;
  payload: Record<string, unknown>;
  created_at: string;
}

try {
  const started = await startBenchDaemon();
  daemon = started.child;
  const dispatcher = new Agent({ connect: { socketPath: started.socketPath }, connections: 128 });
  const token = readFileSync(join(home, 'owner.token'), 'utf8').trim();
  const call = async (path: string, init: { method?: string; body?: unknown } = {}) => {
    const res = await fetch(`http://localhost${path}`, {
      method: init.method ?? 'GET',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
      dispatcher,
    });
    if (!res.ok) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
    return res.json() as Promise<Record<string, unknown>>;
  };

  // Watchers first: every event of the run reaches each of them.
  const lags: number[] = [];
  let outcomes = 0;
  let allDone: () => void = () => {};
  const finished = new Promise<void>((resolve) => {
    allDone = resolve;
  });
  const watchedFrom = Date.now();
  const streams = Array.from({ length: WATCHERS }, (_, i) =>
    watch(started.socketPath, token, (event, at) => {
      // The backlog (events from before the watchers connected) is not a delivery lag.
      if (Date.parse(event.created_at) >= watchedFrom) lags.push(at - Date.parse(event.created_at));
      if (i === 0 && event.kind === 'node.outcome' && ++outcomes === NODES) allDone();
    }),
  );
  await Promise.all(streams.map((s) => s.ready));

  const script = [
    { tool_calls: [{ name: 'bash', input: { command: 'echo bench' } }] },
    { tool_calls: [{ name: 'report', input: { text: 'half way' } }] },
    { tool_calls: [{ name: 'submit', input: { summary: 'done' } }] },
  ];
  const t0 = performance.now();
  const ids: string[] = [];
  for (let i = 0; i < NODES; i++) {
    const node = await call('/v1/nodes', {
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
    const page = await call(
      `/v1/nodes/${id}/events?kinds=node.turn,node.tool,node.state&limit=200`,
    );
    const events = page.data as EventDto[];
    if (!events.some((e) => e.kind === 'node.state' && e.payload.to === 'done')) failed++;
    overheads.push(...turnOverheads(events));
  }

  process.kill(daemon.pid!, 'SIGTERM');
  await new Promise((resolve) => daemon!.once('exit', resolve));
  daemon = undefined;
  const starts = brokerStarts(join(home, 'svc.db'));

  const bareSpawns = await timedSpawns(20, 1);
  const bareWallMs = (await timedSpawns(NODES, CONCURRENCY)).wallMs;
  const bareNotify = insertAndNotify(join(home, 'bare.db'), WATCHERS, 200);

  const rows = [
    [
      'total wall time (s)',
      fmt(wallMs / 1000, 1),
      fmt(bareWallMs / 1000, 1),
      ratio(wallMs, bareWallMs),
    ],
    [
      'broker start, median (ms)',
      fmt(pct(starts, 50), 0),
      fmt(pct(bareSpawns.each, 50), 0),
      ratio(pct(starts, 50), pct(bareSpawns.each, 50)),
    ],
    [
      'broker start, p99 (ms)',
      fmt(pct(starts, 99), 0),
      fmt(pct(bareSpawns.each, 99), 0),
      ratio(pct(starts, 99), pct(bareSpawns.each, 99)),
    ],
    [
      'overhead per turn, median (ms)',
      fmt(pct(overheads, 50), 1),
      fmt(pct(bareNotify.step, 50), 2),
      ratio(pct(overheads, 50), pct(bareNotify.step, 50)),
    ],
    [
      'overhead per turn, p99 (ms)',
      fmt(pct(overheads, 99), 1),
      fmt(pct(bareNotify.step, 99), 2),
      ratio(pct(overheads, 99), pct(bareNotify.step, 99)),
    ],
    [
      `event lag to ${WATCHERS} watchers, p99 (ms)`,
      fmt(pct(lags, 99), 1),
      fmt(pct(bareNotify.lag, 99), 2),
      ratio(pct(lags, 99), pct(bareNotify.lag, 99)),
    ],
  ];
  process.stdout.write(
    [
      `# svc nodes benchmark (${NODES} nodes × 3 scripted turns, ${CONCURRENCY} brokers at a time, ${WATCHERS} stream watchers, Node ${process.versions.node})`,
      '',
      `${NODES - failed} of ${NODES} nodes done; ${overheads.length} turn gaps, ${lags.length} event deliveries measured.`,
      '',
      '| measure | svc | bare baseline | ratio |',
      '| --- | ---: | ---: | ---: |',
      ...rows.map((r) => `| ${r.join(' | ')} |`),
      '',
      ...(process.env.BENCH_VERBOSE
        ? [`Broker starts in launch order (ms): ${starts.join(' ')}`, '']
        : []),
      "Baselines: wall time and broker start ↔ bare `node -e ''` spawns (the same number, as many at a time);",
      'overhead per turn and event lag ↔ one durable SQLite insert (WAL, synchronous=FULL) plus an in-process notify.',
      '',
    ].join('\n'),
  );
} finally {
  if (daemon?.pid !== undefined) daemon.kill('SIGKILL');
  rmSync(home, { recursive: true, force: true });
}

function startBenchDaemon(): Promise<{ child: ChildProcess; socketPath: string }> {
  const child = spawn(
    process.execPath,
    [
      '--disable-warning=ExperimentalWarning',
      join(here, 'nodes-daemon.ts'),
      home,
      String(CONCURRENCY),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the bench daemon exited (${code})`)));
    createInterface({ input: child.stdout! }).once('line', (line) => {
      resolve({ child, socketPath: (JSON.parse(line) as { socketPath: string }).socketPath });
    });
  });
}

/** One SSE watcher of `/v1/events`; `onEvent` gets each event and when it arrived. */
function watch(socketPath: string, token: string, onEvent: (e: EventDto, at: number) => void) {
  const controller = new AbortController();
  const dispatcher = new Agent({ connect: { socketPath } });
  const ready = (async () => {
    const res = await fetch('http://localhost/v1/events', {
      headers: { authorization: `Bearer ${token}` },
      signal: controller.signal,
      dispatcher,
    });
    if (!res.ok || res.body === null) throw new Error(`GET /v1/events answered ${res.status}`);
    return res.body;
  })();
  void ready.then(async (body) => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of body) {
        const at = Date.now();
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        let cut = buffer.indexOf('\n\n');
        while (cut !== -1) {
          const data = buffer
            .slice(0, cut)
            .split('\n')
            .find((l) => l.startsWith('data: '));
          if (data !== undefined) onEvent(JSON.parse(data.slice(6)) as EventDto, at);
          buffer = buffer.slice(cut + 2);
          cut = buffer.indexOf('\n\n');
        }
      }
    } catch {
      // Closed by the bench.
    }
  });
  return { ready, close: () => controller.abort() };
}

/**
 * Per node: each turn's end to the next turn's start, minus the bash command's own duration; and
 * the claim (`start`) to the first turn's start.
 */
function turnOverheads(events: EventDto[]): number[] {
  const turns = events
    .filter((e) => e.kind === 'node.turn')
    .map((e) => e.payload.turn as { index: number; started_at: string; finished_at: string });
  const bashMs = new Map<number, number>();
  for (const e of events) {
    const call = e.payload.tool_call as
      | { name: string; output: { duration_ms?: number } }
      | undefined;
    if (e.kind === 'node.tool' && call?.name === 'bash') {
      bashMs.set(e.payload.turn_index as number, call.output.duration_ms ?? 0);
    }
  }
  const gaps: number[] = [];
  for (let i = 1; i < turns.length; i++) {
    const prev = turns[i - 1]!;
    const gap = Date.parse(turns[i]!.started_at) - Date.parse(prev.finished_at);
    gaps.push(gap - (bashMs.get(prev.index) ?? 0));
  }
  return gaps;
}

/** Broker start times from the daemon's record, in launch order: launched → claim answered. */
function brokerStarts(db: string): number[] {
  const sqlite = new DatabaseSync(db, { readOnly: true });
  const rows = sqlite
    .prepare(
      'SELECT started_at, claimed_at FROM brokers WHERE claimed_at IS NOT NULL ORDER BY started_at',
    )
    .all() as { started_at: string; claimed_at: string }[];
  sqlite.close();
  return rows.map((r) => Date.parse(r.claimed_at) - Date.parse(r.started_at));
}

/** `count` spawns of `node -e ''`, `parallel` at a time: each one's time to exit, and the wall time. */
async function timedSpawns(
  count: number,
  parallel: number,
): Promise<{ each: number[]; wallMs: number }> {
  const each: number[] = [];
  let next = 0;
  const t0 = performance.now();
  const worker = async () => {
    while (next < count) {
      next++;
      const t = performance.now();
      await new Promise((resolve) => spawn(process.execPath, ['-e', '']).once('exit', resolve));
      each.push(performance.now() - t);
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return { each, wallMs: performance.now() - t0 };
}

/** `rounds` durable inserts, each followed by a notify of `listeners` in-process callbacks. */
function insertAndNotify(file: string, listeners: number, rounds: number) {
  const sqlite = new DatabaseSync(file);
  sqlite.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;');
  sqlite.exec('CREATE TABLE events (seq INTEGER PRIMARY KEY AUTOINCREMENT, payload TEXT NOT NULL)');
  const insert = sqlite.prepare('INSERT INTO events (payload) VALUES (?)');
  const step: number[] = [];
  const lag: number[] = [];
  let t = 0;
  const subscribers = Array.from(
    { length: listeners },
    () => () => lag.push(performance.now() - t),
  );
  for (let i = 0; i < rounds; i++) {
    t = performance.now();
    insert.run(JSON.stringify({ i }));
    for (const s of subscribers) s();
    step.push(performance.now() - t);
  }
  sqlite.close();
  return { step, lag };
}

function pct(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function ratio(ours: number, bare: number): string {
  return bare > 0 ? `${fmt(ours / bare, 1)}×` : 'n/a';
}

function fmt(value: number, digits: number): string {
  return Number.isFinite(value) ? value.toFixed(digits) : 'n/a';
}

function positive(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}
