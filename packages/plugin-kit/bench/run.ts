/// <reference types="node" />
// `npm run bench -w @svc/plugin-kit`: requests/s and p99 latency of the kit over real HTTP
// beside a bare Fetch handler and the same endpoint on Hono, measured in the same run.
// Beside throughput it reports the server's CPU time per request. Each variant is served by a
// process of its own (bench/serve.ts), as a deployment would serve it: no variant collects
// another's garbage, and Bun or Deno can serve the rows too. Each row's three servers are
// loaded in turn, in short slices (kit, bare, hono, hono, bare, kit, …), and each cell sums its
// slices: on a machine shared with other work, interference and a change of CPU speed then hit
// all three alike, and no variant always runs first, or always right after the same other.
// Knobs: BENCH_SECONDS (per cell, default 5), BENCH_SLICES (default 5), BENCH_CONNECTIONS
// (default 32), BENCH_TOKENS (default 50000), BENCH_ROWS (comma-separated row-name substrings),
// BENCH_RUNTIME (node, the default, on @hono/node-server; bun or deno, on Bun.serve or
// Deno.serve, from the project's own devDependencies).
// To profile one cell, serve it alone with `node --cpu-prof bench/serve.ts '<row>' kit`.
import { execFile } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type Child, cpuMicros, startServer } from './child.ts';
import { createDirectory, DIRECTORY_KEY_ENV } from './directory.ts';
import { positive, rowWanted } from './knobs.ts';
import type { LoadResult, LoadSpec } from './load.ts';
import { createRows, type Row, type Variant } from './scenarios.ts';

const seconds = positive('BENCH_SECONDS', 5);
const connections = positive('BENCH_CONNECTIONS', 32);
const poolSize = positive('BENCH_TOKENS', 50_000);
const slices = positive('BENCH_SLICES', 5);
const VARIANTS: Variant[] = ['kit', 'bare', 'hono'];
const SERVE = join(import.meta.dirname, 'serve.ts');
const RUNTIMES: Record<string, { label: string; command: string[] }> = {
  node: { label: `Node ${process.version}, @hono/node-server`, command: [process.execPath] },
  bun: { label: 'Bun, Bun.serve', command: ['bun'] },
  deno: { label: 'Deno, Deno.serve', command: ['deno', 'run', '-A'] },
};
const runtimeName = process.env.BENCH_RUNTIME ?? 'node';
const runtime = RUNTIMES[runtimeName];
if (runtime === undefined) {
  throw new TypeError(`BENCH_RUNTIME must be one of ${Object.keys(RUNTIMES).join(', ')}`);
}
const [serverCommand = '', ...serverArgs] = runtime.command;

/** A load result plus the server's CPU microseconds per request answered; NaN without /proc. */
type Measured = LoadResult & { cpu: number };

const directory = createDirectory('https://directory.bench', 'http://127.0.0.1/plugins');
const tokensFile = join(tmpdir(), `svc-bench-tokens-${process.pid}.json`);
console.error(`minting ${poolSize} distinct ES256 tokens…`);
writeFileSync(tokensFile, JSON.stringify(directory.mintPool(poolSize, 'acme:tickets')));

const rows = (await createRows('bench-shared-token', directory)).filter((row) =>
  rowWanted(row.name),
);
const table: { row: Row; results: Record<Variant, Measured> }[] = [];
try {
  for (const row of rows) table.push({ row, results: await measureRow(row) });
} finally {
  rmSync(tokensFile, { force: true });
}

console.log(
  `\n${seconds} s per cell in ${slices} slices taken in turn with the row's other cells, after 1 s warm-up each; ${connections} connections; ${runtime.label}, each variant in its own process; p99: median of the slices'; µs = server CPU per request\n`,
);
console.log(
  '| row | kit req/s | kit p99 | kit µs | bare req/s | bare p99 | bare µs | kit/bare | hono req/s | hono p99 | hono µs | kit/hono |',
);
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const { row, results: r } of table) {
  const cells = [
    row.name,
    rate(r.kit),
    ms(r.kit),
    cpu(r.kit),
    rate(r.bare),
    ms(r.bare),
    cpu(r.bare),
    ratio(r.kit, r.bare),
    rate(r.hono),
    ms(r.hono),
    cpu(r.hono),
    ratio(r.kit, r.hono),
  ];
  console.log(`| ${cells.join(' | ')} |`);
}
const misses = table.flatMap(({ row, results: r }) => [
  ...(row.target !== undefined && r.kit.rps < row.target * r.bare.rps
    ? [`${row.name}: kit/bare ${ratio(r.kit, r.bare)} < ${row.target.toFixed(2)}`]
    : []),
  ...(r.kit.rps <= r.hono.rps ? [`${row.name}: kit/hono ${ratio(r.kit, r.hono)} ≤ 1`] : []),
]);
console.log(
  misses.length === 0 ? '\nall targets met' : `\ntargets missed:\n- ${misses.join('\n- ')}`,
);

/** The row's three variants, each on its own server, loaded in alternating slices. */
async function measureRow(row: Row): Promise<Record<Variant, Measured>> {
  const servers: Awaited<ReturnType<typeof serveVariant>>[] = [];
  try {
    for (const variant of VARIANTS) servers.push(await serveVariant(row, variant));
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
        const variant = VARIANTS[i]!;
        console.error(`${row.name} · ${variant} · slice ${slice + 1}/${slices}`);
        const result = await server.load(seconds / slices, 0, slice * perSlice);
        check(row, variant, result);
        parts[i]!.push(result);
      }
    }
    return Object.fromEntries(
      VARIANTS.map((variant, i) => [variant, combine(parts[i]!)]),
    ) as Record<Variant, Measured>;
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
        process.execPath,
        [join(import.meta.dirname, 'load.ts'), JSON.stringify(spec)],
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

function ratio(a: LoadResult, b: LoadResult): string {
  return (a.rps / b.rps).toFixed(2);
}
