/// <reference types="node" />
// `npm run bench:instructions -w @svc/plugin-kit`: the CPU instructions each variant's server
// runs per request, counted by valgrind's callgrind, beside the same count for the bare handler
// and for Hono, measured in the same run. A count does not change with the machine's load, the
// CPU's speed or the other tenants of a VM, which make `npm run bench`'s requests/s swing by a
// third from one run to the next here; it repeats to within about 1%. It is not a rate: it
// leaves out the kernel, the caches and the other threads (the GC's helpers, the compiler), so it
// shows what a change saves or adds, and `npm run bench` shows what that is worth.
// Each cell serves the row with `bench/serve.ts` under callgrind, counting nothing at first;
// sends BENCH_WARMUP requests (default 20000), enough for the optimizing compiler; turns
// counting on for BENCH_REQUESTS more (default 5000); and reads the main thread's count. The
// directory row sends a distinct token with every one of them, signed here by a key the
// servers are given. BENCH_VARIANTS (comma-separated: kit,bare,…) counts only those cells;
// BENCH_ADAPTER (hono, srvx, remix) serves them on another Node adapter, as for `npm run bench`.
// Needs valgrind (Debian: `apt-get install valgrind`). BENCH_ROWS as for `npm run bench`.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type Served, startServer } from './child.ts';
import { createDirectory, DIRECTORY_KEY_ENV } from './directory.ts';
import { NODE_ADAPTERS, nodeAdapter, positive, rowWanted, variantWanted } from './knobs.ts';
import { allVariantsOf, createRows, type Row, type Variant } from './scenarios.ts';

const warmup = positive('BENCH_WARMUP', 20_000);
const counted = positive('BENCH_REQUESTS', 5_000);
const run = promisify(execFile);
const directory = createDirectory('https://directory.bench', 'http://127.0.0.1/plugins');
const rows = (await createRows('bench-shared-token', directory)).filter((row) =>
  rowWanted(row.name),
);

try {
  await run('valgrind', ['--version']);
} catch {
  console.error('bench:instructions needs valgrind on the PATH (Debian: apt-get install valgrind)');
  process.exit(2);
}

const table: { row: string; counts: Partial<Record<Variant, number>> }[] = [];
for (const row of rows) {
  const tokens = row.tokens ? directory.mintPool(warmup + counted, 'acme:tickets') : undefined;
  const counts: Partial<Record<Variant, number>> = {};
  for (const variant of allVariantsOf(row).filter(variantWanted)) {
    console.error(`${row.name} · ${variant}`);
    counts[variant] = await instructionsPerRequest(row, variant, tokens);
  }
  table.push({ row: row.name, counts });
}

console.log(
  `\ninstructions per request on the server's main thread (callgrind), over ${counted} requests after ${warmup} uncounted; 8 connections, ${NODE_ADAPTERS[nodeAdapter()]}, Node ${process.version}. kit/bare, kit/hono and kit/minimal are inverted (bare÷kit, …) to read as request rates do: above 1 is the kit doing less. minimal: the command written by hand, doing only what the kit must; reads: bare plus only the header lookups the kit must make, and reads/bare is bare÷reads, the most any implementation reading them can reach on this adapter\n`,
);
console.log(
  '| row | kit | bare | hono | minimal | reads | kit/bare | kit/hono | kit/minimal | reads/bare |',
);
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const { row, counts } of table) {
  const share = (other: number | undefined) =>
    other === undefined || counts.kit === undefined ? '–' : (other / counts.kit).toFixed(3);
  const cells = [
    row,
    whole(counts.kit),
    whole(counts.bare),
    whole(counts.hono),
    whole(counts.minimal),
    whole(counts.reads),
    share(counts.bare),
    share(counts.hono),
    share(counts.minimal),
    counts.reads === undefined || counts.bare === undefined
      ? '–'
      : (counts.bare / counts.reads).toFixed(3),
  ];
  console.log(`| ${cells.join(' | ')} |`);
}

/** One cell: serve the row under callgrind, warm it, count `counted` requests. */
async function instructionsPerRequest(
  row: Row,
  variant: Variant,
  tokens: string[] | undefined,
): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-cg-'));
  try {
    const server = await startServer(
      'valgrind',
      [
        '--tool=callgrind',
        '--instr-atstart=no', // nothing counted until the warm-up is over
        '--separate-threads=yes', // the main thread apart from the GC's and compiler's
        `--callgrind-out-file=${join(dir, 'cg')}`,
        process.execPath,
        join(import.meta.dirname, 'serve.ts'),
        row.name,
        variant,
      ],
      { ...process.env, [DIRECTORY_KEY_ENV]: directory.privateKeyPem },
    );
    const pid = String(server.process.pid);
    try {
      const { served } = server;
      await drive(served, warmup, tokens, 0);
      await run('callgrind_control', ['--instr=on', pid]);
      await drive(served, counted, tokens, warmup);
      await run('callgrind_control', ['--dump', pid]);
    } finally {
      await server.stop();
    }
    const dump = readdirSync(dir).find((name) => name.endsWith('.1-01'));
    if (dump === undefined) throw new Error(`${row.name} · ${variant}: callgrind wrote no dump`);
    const total = /^totals: (\d+)$/m.exec(readFileSync(join(dir, dump), 'utf8'))?.[1];
    if (total === undefined) throw new Error(`${row.name} · ${variant}: no totals in ${dump}`);
    return Number(total) / counted;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * `count` requests over 8 keep-alive connections, each a fresh token when the row has a pool,
 * every answer checked for the row's status (2xx, or 304 when it sends If-None-Match).
 */
async function drive(
  served: Served,
  count: number,
  tokens: string[] | undefined,
  offset: number,
): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  const url = new URL(served.url);
  const expected = served.headers['if-none-match'] === undefined ? 200 : 304;
  let sent = 0;
  const one = (): Promise<void> | undefined => {
    if (sent >= count) return undefined;
    const token = tokens?.[(offset + sent) % tokens.length];
    sent++;
    return new Promise<void>((resolve, reject) => {
      const outgoing = request(
        {
          agent,
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: served.method,
          headers: {
            ...served.headers,
            ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
            ...(served.body === undefined
              ? {}
              : { 'content-length': String(Buffer.byteLength(served.body)) }),
          },
        },
        (response) => {
          response.resume();
          response.on('end', () =>
            response.statusCode === expected
              ? resolve()
              : reject(new Error(`answered ${response.statusCode}, not ${expected}`)),
          );
        },
      );
      outgoing.on('error', reject);
      outgoing.end(served.body);
    }).then(one);
  };
  try {
    await Promise.all(Array.from({ length: 8 }, one));
  } finally {
    agent.destroy();
  }
}

function whole(n: number | undefined): string {
  return n === undefined ? '–' : Math.round(n).toLocaleString('en-US');
}
