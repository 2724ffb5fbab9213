/// <reference types="node" />
// `npm run bench:cpu -w @svc/plugin-kit`: CPU microseconds per request of each benchmark cell,
// driven through @hono/node-server's request listener in-process, with no socket. It leaves out
// the kernel's share of a request, which dominates over loopback and swings with whatever else
// the machine runs, so it compares the handlers themselves steadily on a shared machine.
// Knobs: BENCH_REQUESTS (default 20000 per cell; a tenth for the directory row), BENCH_ROUNDS
// (default 3; each cell keeps its lowest), BENCH_ROWS (comma-separated row-name substrings),
// BENCH_VARIANTS (e.g. `kit` alone, to profile it with --cpu-prof), BENCH_COLD (see below).
//
// Back to back in one loop, a request finds the handler's code and data in the CPU's caches.
// Over a socket it does not: between two requests the kernel and the load generator run, so
// each request pays the cache misses of the code and data it touches, and a handler's extra code
// costs more there than a warm loop shows.
// BENCH_COLD=<bytes> (e.g. 1000000) writes one byte of every 64 across a buffer that large
// before each request, evicting what the last one left, and times the request alone (wall
// time: nothing in it waits on I/O). A model, not a measure: on this project's VM its command
// rows' kit/bare came within 0.05 of those over sockets, its archive rows' 0.06-0.13 below.
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { Writable } from 'node:stream';
import { getRequestListener } from '@hono/node-server';
import { createDirectory } from './directory.ts';
import { nonNegative, positive, rowWanted, variantWanted } from './knobs.ts';
import { createRows, type Row, type Variant, variantsOf } from './scenarios.ts';

const requests = positive('BENCH_REQUESTS', 20_000);
const rounds = positive('BENCH_ROUNDS', 3);
const cold = nonNegative('BENCH_COLD', 0);
const variantsWanted = (row: Row) => variantsOf(row).filter(variantWanted);

const directory = createDirectory('https://directory.bench', 'http://127.0.0.1/plugins');
const tokens = directory.mintPool(5_000, 'acme:tickets');
const rows = (await createRows('bench-shared-token', directory)).filter((row) =>
  rowWanted(row.name),
);

/** Where answers go: a socket stand-in that accepts every write at once. */
class Discard extends Writable {
  override _write(_chunk: unknown, _encoding: string, done: () => void): void {
    done();
  }
}

type Listener = ReturnType<typeof getRequestListener>;

/** A row's request headers as node:http hands them over: names as sent, and lower-cased. */
interface Prepared {
  raw: string[];
  lower: Record<string, string>;
}

function prepare(row: Row, headers: Record<string, string>): Prepared {
  const all: Record<string, string> = { host: '127.0.0.1', ...headers };
  if (row.body !== undefined) all['content-length'] = String(Buffer.byteLength(row.body));
  return {
    raw: Object.entries(all).flat(),
    lower: Object.fromEntries(Object.entries(all).map(([k, v]) => [k.toLowerCase(), v])),
  };
}

/**
 * One request through the listener; resolves its status. The headers are prepared outside the
 * timed loop, so the work every variant shares does not pull their ratios together.
 */
function send(listener: Listener, row: Row, headers: Prepared): Promise<number> {
  const request = new IncomingMessage(new Socket());
  // node:http keeps the names as sent in rawHeaders and lower-cased in headers.
  Object.assign(request, {
    method: row.method,
    url: row.path,
    headers: headers.lower,
    complete: true,
  });
  request.rawHeaders = headers.raw;
  if (row.body !== undefined) request.push(row.body);
  request.push(null);
  const response = new ServerResponse(request);
  response.assignSocket(new Discard() as unknown as Socket);
  return new Promise((finished) => {
    response.on('finish', () => finished(response.statusCode));
    void listener(request, response);
  });
}

async function measure(row: Row, variant: Variant): Promise<number> {
  const handler = row.handlers[variant];
  if (handler === undefined) throw new Error(`${row.name} has no ${variant} variant`);
  const listener = getRequestListener(handler);
  const headers = { ...row.headers };
  if (row.conditional) {
    const first = await handler(new Request(`http://127.0.0.1${row.path}`));
    headers['if-none-match'] = first.headers.get('etag') ?? '';
  }
  const count = row.tokens ? Math.ceil(requests / 10) : requests;
  // A distinct token per request, as over sockets; each pool entry's headers prepared once.
  const prepared = row.tokens
    ? tokens.map((token) => prepare(row, { ...headers, authorization: `Bearer ${token}` }))
    : [prepare(row, headers)];
  const one = (i: number) => send(listener, row, prepared[i % prepared.length]!);
  const checked = async (i: number) => {
    const status = await one(i);
    if (status !== row.status) throw new Error(`${row.name} · ${variant}: answered ${status}`);
  };
  for (let i = 0; i < Math.min(count, 5_000); i++) await one(i); // let the JIT settle
  if (cold > 0) {
    let elapsed = 0n;
    for (let i = 0; i < count; i++) {
      evict();
      const start = process.hrtime.bigint();
      await checked(i);
      elapsed += process.hrtime.bigint() - start;
    }
    return Number(elapsed) / 1_000 / count;
  }
  const before = process.cpuUsage();
  for (let i = 0; i < count; i++) await checked(i);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / count;
}

const scratch = new Uint8Array(cold);
/** Touches every cache line of `scratch`, so the next request starts with cold caches. */
function evict(): void {
  for (let i = 0; i < scratch.length; i += 64) scratch[i] = (scratch[i]! + 1) & 0xff;
}

const best = new Map<Row, Partial<Record<Variant, number>>>(rows.map((row) => [row, {}]));
for (let round = 1; round <= rounds; round++) {
  for (const row of rows) {
    const cells = best.get(row)!;
    for (const variant of variantsWanted(row)) {
      console.error(`round ${round}/${rounds} · ${row.name} · ${variant}`);
      const cpu = await measure(row, variant);
      cells[variant] = Math.min(cells[variant] ?? Infinity, cpu);
    }
  }
}

console.log(
  `\n${cold > 0 ? `µs per request with cold caches (${cold} bytes evicted before each)` : 'CPU µs per request'} through @hono/node-server's listener, no socket; lowest of ${rounds} round(s), Node ${process.version}\n`,
);
console.log(
  '| row | kit µs | bare µs | hono µs | minimal µs | bare/kit | hono/kit | minimal/kit |',
);
console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
for (const [row, cells] of best) {
  const fixed = (value: number | undefined) => (value === undefined ? '–' : value.toFixed(1));
  const share = (value: number | undefined) =>
    value === undefined || cells.kit === undefined ? '–' : (value / cells.kit).toFixed(2);
  console.log(
    `| ${row.name} | ${fixed(cells.kit)} | ${fixed(cells.bare)} | ${fixed(cells.hono)} | ${fixed(cells.minimal)} | ${share(cells.bare)} | ${share(cells.hono)} | ${share(cells.minimal)} |`,
  );
}
