/// <reference types="node" />
// `npm run bench -w @svc/plugin-kit`: requests/s and p99 latency of the kit over real HTTP
// beside a bare Fetch handler and the same endpoint on Hono, measured in the same run.
// Beside throughput it reports the server's CPU time per request. Each variant is served by a
// process of its own (bench/serve.ts), as a deployment would serve it: no variant collects
// another's garbage, and Bun or Deno can serve the rows too. Each row's servers are loaded in
// turn, in short slices (kit, bare, hono, hono, bare, kit, …), and each cell sums its slices:
// on a machine shared with other work, interference and a change of CPU speed then hit all
// variants alike, and no variant always runs first, or always right after the same other.
// What is left of that noise shows beside each ratio: the quartiles of the same ratio taken
// round by round, and a run whose kit/bare quartiles lie far apart is called unsteady. Where
// `taskset` is, the servers run on one CPU and the load generator on another, so that neither
// takes the other's CPU time.
// Knobs: BENCH_SECONDS (per cell, default 20), BENCH_SLICES (default 10), BENCH_CONNECTIONS
// (default 32), BENCH_TOKENS (default 50000), BENCH_ROWS (comma-separated row-name substrings),
// BENCH_RUNTIME (node, the default, on @hono/node-server; bun or deno, on Bun.serve or
// Deno.serve, from the project's own devDependencies), BENCH_ADAPTER (on Node: hono, the default,
// srvx or remix, whose bare handlers cost 2.4-2.7 times as much), BENCH_PIN=0 (no pinning).
// To profile one cell, serve it alone with `node --cpu-prof bench/serve.ts '<row>' kit`.
import { execFile, execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type Child, cpuMicros, startServer } from './child.ts';
import { createDirectory, DIRECTORY_KEY_ENV } from './directory.ts';
import { NODE_ADAPTERS, nodeAdapter, positive, rowWanted } from './knobs.ts';
import type { LoadResult, LoadSpec } from './load.ts';
import { createRows, type Row, type Variant, variantsOf } from './scenarios.ts';

// 2 s slices: each slice starts a fresh load generator process, and with 0.5 s slices a row's
// round-by-round ratios spread about twice as wide (token row, same machine and hour: quartiles
// 0.73-0.99 against 0.86-0.97).
const seconds = positive('BENCH_SECONDS', 20);
const connections = positive('BENCH_CONNECTIONS', 32);
const poolSize = positive('BENCH_TOKENS', 50_000);
const slices = positive('BENCH_SLICES', 10);
/** How far apart a row's slice ratios may be before the run is called unsteady. */
const UNSTEADY = 0.15;
const SERVE = join(import.meta.dirname, 'serve.ts');
const RUNTIMES: Record<string, { label: string; command: string[] }> = {
  node: {
    label: `Node ${process.version}, ${NODE_ADAPTERS[nodeAdapter()]}`,
    command: [process.execPath],
  },
  bun: { label: 'Bun, Bun.serve', command: ['bun'] },
  deno: { label: 'Deno, Deno.serve', command: ['deno', 'run', '-A'] },
};
const runtimeName = process.env.BENCH_RUNTIME ?? 'node';
const runtime = RUNTIMES[runtimeName];
if (runtime === undefined) {
  throw new TypeError(`BENCH_RUNTIME must be one of ${Object.keys(RUNTIMES).join(', ')}`);
}
const pin = pinning();
const onCpu = (cpu: number | undefined) => (cpu === undefined ? [] : ['taskset', '-c', `${cpu}`]);
const [serverCommand = '', ...serverArgs] = [...onCpu(pin?.serverCpu), ...runtime.command];
const [loadCommand = '', ...loadArgs] = [...onCpu(pin?.loadCpu), process.execPath];

/** A load result plus the server's CPU microseconds per request answered; NaN without /proc. */
type Measured = LoadResult & { cpu: number };
/** A cell's slices summed, and each slice in the order they ran. */
type Cell = { total: Measured; slices: Measured[] };
type RowResults = Record<Exclude<Variant, 'minimal' | 'reads'>, Cell> & { minimal?: Cell };

const directory = createDirectory('https://directory.bench', 'http://127.0.0.1/plugins');
const tokensFile = join(tmpdir(), `svc-bench-tokens-${process.pid}.json`);
console.error(`minting ${poolSize} distinct ES256 tokens…`);
writeFileSync(tokensFile, JSON.stringify(directory.mintPool(poolSize, 'acme:tickets')));

const rows = (await createRows('bench-shared-token', directory)).filter((row) =>
  rowWanted(row.name),
);
const table: { row: Row; results: RowResults }[] = [];
try {
  for (const row of rows) table.push({ row, results: await measureRow(row) });
} finally {
  rmSync(tokensFile, { force: true });
}

console.log(
  `\n${seconds} s per cell in ${slices} slices taken in turn with the row's other cells, after 1 s warm-up each; ${connections} connections; ${runtime.label}, each variant in its own process${pin === null ? '' : `, servers on CPU ${pin.serverCpu} and the load generator on CPU ${pin.loadCpu}`}; p99: median of the slices'; µs = server CPU per request; in brackets, the quartiles of the ratio round by round; minimal: the command written by hand, doing only what the kit must (bench/scenarios.ts)\n`,
);
console.log(
  '| row | kit req/s | kit p99 | kit µs | bare req/s | bare p99 | bare µs | kit/bare | hono req/s | hono p99 | hono µs | kit/hono | minimal req/s | minimal µs | kit/minimal |',
);
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const { row, results: r } of table) {
  const { kit, bare, hono, minimal } = r;
  const cells = [
    row.name,
    rate(kit.total),
    ms(kit.total),
    cpu(kit.total),
    rate(bare.total),
    ms(bare.total),
    cpu(bare.total),
    ratio(kit, bare),
    rate(hono.total),
    ms(hono.total),
    cpu(hono.total),
    ratio(kit, hono),
    ...(minimal === undefined
      ? ['–', '–', '–']
      : [rate(minimal.total), cpu(minimal.total), ratio(kit, minimal)]),
  ];
  console.log(`| ${cells.join(' | ')} |`);
}
const misses = table.flatMap(({ row, results: { kit, bare, hono } }) => [
  ...(row.target !== undefined && kit.total.rps < row.target * bare.total.rps
    ? [`${row.name}: kit/bare ${ratio(kit, bare)} < ${row.target.toFixed(2)}`]
    : []),
  ...(kit.total.rps <= hono.total.rps ? [`${row.name}: kit/hono ${ratio(kit, hono)} ≤ 1`] : []),
]);
// On a quiet machine the quartiles of a row's kit/bare rounds lie a few hundredths apart; a busy
// one (another tenant of the host, say) spreads them far wider, and then no ratio of the run
// means much. (NaN, from a row with no finite ratio, also counts as unsteady.)
const unsteady = table.flatMap(({ row, results: { kit, bare } }) => {
  const { low, high } = spread(kit, bare);
  return !(high - low <= UNSTEADY) ? [`${row.name}: kit/bare ${ratio(kit, bare)}`] : [];
});
console.log(
  misses.length === 0 ? '\nall targets met' : `\ntargets missed:\n- ${misses.join('\n- ')}`,
);
if (unsteady.length > 0) {
  console.log(
    `\nrounds far apart (kit/bare quartiles more than ${UNSTEADY} apart): the machine was busy, run again:\n- ${unsteady.join('\n- ')}`,
  );
}

/** The row's variants, each on its own server, loaded in alternating slices. */
async function measureRow(row: Row): Promise<RowResults> {
  const variants = variantsOf(row);
  const servers: Awaited<ReturnType<typeof serveVariant>>[] = [];
  try {
    for (const variant of variants) servers.push(await serveVariant(row, variant));
    for (const server of servers) await server.load(1, 0, 0); // JIT and connections warm
    const parts = servers.map(() => [] as Measured[]);
    const perSlice = Math.floor(poolSize / slices);
    for (let slice = 0; slice < slices; slice++) {
      // Forwards, then backwards (kit bare hono, hono bare kit, …): whichever runs right after
      // another meets what it left (a warmer or cooler machine), and each variant's place in the
      // order averages out the same.
      const order = [...servers.entries()];
      if (slice % 2 === 1) order.reverse();
      for (const [i, server] of order) {
        const variant = variants[i]!;
        console.error(`${row.name} · ${variant} · slice ${slice + 1}/${slices}`);
        const result = await server.load(seconds / slices, 0, slice * perSlice);
        check(row, variant, result);
        parts[i]!.push(result);
      }
    }
    return Object.fromEntries(
      variants.map((variant, i) => [variant, { total: combine(parts[i]!), slices: parts[i]! }]),
    ) as RowResults;
  } finally {
    for (const server of servers) await server.stop();
  }
}

/** One variant's server process, trusting the run's directory, and a way to load it. */
async function serveVariant(row: Row, variant: Variant) {
  const child: Child = await startServer(serverCommand, [...serverArgs, SERVE, row.name, variant], {
    ...process.env,
    [DIRECTORY_KEY_ENV]: directory.privateKeyPem,
  });
  const { served } = child;
  const pid = child.process.pid ?? -1;
  return {
    async load(loadSeconds: number, warmupSeconds: number, tokenOffset: number): Promise<Measured> {
      const spec: LoadSpec = {
        url: served.url,
        method: served.method,
        headers: served.headers,
        ...(served.body === undefined ? {} : { body: served.body }),
        ...(row.tokens ? { tokensFile, tokenOffset } : {}),
        connections,
        seconds: loadSeconds,
        warmupSeconds,
      };
      const before = cpuMicros(pid);
      const { stdout } = await promisify(execFile)(
        loadCommand,
        [...loadArgs, join(import.meta.dirname, 'load.ts'), JSON.stringify(spec)],
        { maxBuffer: 1 << 20 },
      );
      const after = cpuMicros(pid);
      const result = JSON.parse(stdout.trim().split('\n').at(-1)!) as LoadResult;
      const answered = result.statuses['2xx'] + result.statuses['3xx'];
      const cpu = before === null || after === null ? Number.NaN : (after - before) / answered;
      return { ...result, cpu };
    },
    stop: child.stop,
  };
}

/** Slices summed: rate over their total time, CPU per request over all, p99 their median. */
function combine(parts: Measured[]): Measured {
  const sum = (f: (m: Measured) => number) => parts.reduce((total, m) => total + f(m), 0);
  const requests = sum((m) => m.requests);
  const p99s = parts.map((m) => m.p99).sort((a, b) => a - b);
  const status = (key: keyof LoadResult['statuses']) => sum((m) => m.statuses[key]);
  return {
    rps: requests / sum((m) => (m.rps > 0 ? m.requests / m.rps : 0)),
    p99: p99s[Math.floor(p99s.length / 2)] ?? 0,
    requests,
    statuses: {
      '2xx': status('2xx'),
      '3xx': status('3xx'),
      '4xx': status('4xx'),
      '5xx': status('5xx'),
    },
    errors: sum((m) => m.errors),
    cpu: sum((m) => m.cpu * m.requests) / requests,
  };
}

// A cell only counts if every answer had the row's status: a fast 401 is no result.
function check(row: Row, variant: Variant, result: LoadResult): void {
  const wanted = row.status === 304 ? '3xx' : '2xx';
  const wrong = result.requests - result.statuses[wanted];
  if (wrong > 0 || result.errors > 0 || result.requests === 0) {
    throw new Error(
      `${row.name} · ${variant}: ${wrong} answers not ${wanted}, ${result.errors} errors: ${JSON.stringify(result)}`,
    );
  }
}

function rate(result: LoadResult): string {
  return Math.round(result.rps).toLocaleString('en-US');
}

function ms(result: LoadResult): string {
  return `${result.p99} ms`;
}

function cpu(result: Measured): string {
  return Number.isNaN(result.cpu) ? 'n/a' : `${Math.round(result.cpu)}`;
}

/**
 * `a`'s rate over `b`'s, and the quartiles of the same ratio slice by slice: slice `i` of every
 * variant ran in the same round, kit and bare one right after the other, so each pair met the
 * machine in much the same state.
 */
function spread(a: Cell, b: Cell): { total: number; low: number; high: number } {
  const each = a.slices
    .map((slice, i) => slice.rps / (b.slices[i]?.rps ?? Number.NaN))
    .filter(Number.isFinite)
    .sort((x, y) => x - y);
  return {
    total: a.total.rps / b.total.rps,
    low: quantile(each, 0.25),
    high: quantile(each, 0.75),
  };
}

/** The `q` quantile of sorted `values`, interpolated between the two nearest (NaN when empty). */
function quantile(values: number[], q: number): number {
  const at = q * (values.length - 1);
  const below = values[Math.floor(at)];
  const above = values[Math.ceil(at)];
  if (below === undefined || above === undefined) return Number.NaN;
  return below + (above - below) * (at - Math.floor(at));
}

function ratio(a: Cell, b: Cell): string {
  const { total, low, high } = spread(a, b);
  return `${total.toFixed(2)} (${low.toFixed(2)}–${high.toFixed(2)})`;
}

/**
 * Pins the servers to the last CPU this process may use and the load generator to the first, with
 * `taskset` (util-linux), when there are two or more; `null` where it cannot or BENCH_PIN=0.
 * Each server's helper threads (GC, compiler) share its CPU then, as they would on a busy host.
 */
function pinning(): { serverCpu: number; loadCpu: number } | null {
  if (process.env.BENCH_PIN === '0') return null;
  let cpus: number[];
  try {
    // "pid 123's current affinity list: 0-1,4"
    const list = execFileSync('taskset', ['-cp', String(process.pid)], { encoding: 'utf8' });
    cpus = (list.split(':').at(-1) ?? '')
      .trim()
      .split(',')
      .flatMap((part) => {
        const [first, last = first] = part.split('-').map(Number);
        if (first === undefined || last === undefined) return [];
        return Array.from({ length: last - first + 1 }, (_, i) => first + i);
      });
  } catch {
    console.error('not pinned: no taskset (util-linux)');
    return null;
  }
  const [loadCpu, serverCpu] = [cpus[0], cpus.at(-1)];
  if (
    loadCpu === undefined ||
    serverCpu === undefined ||
    loadCpu === serverCpu ||
    !cpus.every(Number.isInteger)
  ) {
    console.error(`not pinned: one CPU to use, or an affinity list not understood (${cpus})`);
    return null;
  }
  return { serverCpu, loadCpu };
}
