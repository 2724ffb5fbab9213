/// <reference types="node" />
// `npm run bench -w @svc/plugin-kit`: requests/s and p99 latency of the kit over real HTTP
// beside a bare Fetch handler and the same endpoint on Hono, measured in the same run.
// Knobs: BENCH_SECONDS (default 5), BENCH_CONNECTIONS (default 32), BENCH_TOKENS (default 50000).
import { execFile } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type ServerType, serve } from '@hono/node-server';
import { createDirectory } from './directory.ts';
import type { LoadResult, LoadSpec } from './load.ts';
import { createRows, type Handler, type Row, type Variant } from './scenarios.ts';

const seconds = positive('BENCH_SECONDS', 5);
const connections = positive('BENCH_CONNECTIONS', 32);
const poolSize = positive('BENCH_TOKENS', 50_000);
const VARIANTS: Variant[] = ['kit', 'bare', 'hono'];

const directory = createDirectory('https://directory.bench', 'http://127.0.0.1/plugins');
const tokensFile = join(tmpdir(), `svc-bench-tokens-${process.pid}.json`);
console.error(`minting ${poolSize} distinct ES256 tokens…`);
writeFileSync(tokensFile, JSON.stringify(directory.mintPool(poolSize, 'acme:tickets')));

const rows = await createRows('bench-shared-token', directory);
const table: { row: Row; results: Record<Variant, LoadResult> }[] = [];
try {
  for (const row of rows) {
    const results = {} as Record<Variant, LoadResult>;
    for (const variant of VARIANTS) {
      console.error(`${row.name} · ${variant}: ${seconds} s at ${connections} connections`);
      results[variant] = await measure(row, row.handlers[variant]);
      check(row, variant, results[variant]);
    }
    table.push({ row, results });
  }
} finally {
  rmSync(tokensFile, { force: true });
}

console.log(
  `\n${seconds} s per cell after 1 s warm-up, ${connections} connections, @hono/node-server, Node ${process.version}\n`,
);
console.log(
  '| row | kit req/s | kit p99 | bare req/s | bare p99 | kit/bare | hono req/s | hono p99 | kit/hono |',
);
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const { row, results: r } of table) {
  const cells = [
    row.name,
    rate(r.kit),
    ms(r.kit),
    rate(r.bare),
    ms(r.bare),
    ratio(r.kit, r.bare),
    rate(r.hono),
    ms(r.hono),
    ratio(r.kit, r.hono),
  ];
  console.log(`| ${cells.join(' | ')} |`);
}
const misses = table.flatMap(({ row, results: r }) => [
  ...(r.kit.rps < 0.9 * r.bare.rps ? [`${row.name}: kit/bare ${ratio(r.kit, r.bare)} < 0.90`] : []),
  ...(r.kit.rps <= r.hono.rps ? [`${row.name}: kit/hono ${ratio(r.kit, r.hono)} ≤ 1`] : []),
]);
console.log(
  misses.length === 0 ? '\nall targets met' : `\ntargets missed:\n- ${misses.join('\n- ')}`,
);

async function measure(row: Row, handler: Handler): Promise<LoadResult> {
  const server = await listen(handler);
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${row.path}`;
    const headers = { ...row.headers };
    if (row.conditional) headers['if-none-match'] = (await fetch(url)).headers.get('etag') ?? '';
    const spec: LoadSpec = {
      url,
      method: row.method,
      headers,
      ...(row.body === undefined ? {} : { body: row.body }),
      ...(row.tokens ? { tokensFile } : {}),
      connections,
      seconds,
      warmupSeconds: 1,
    };
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [join(import.meta.dirname, 'load.ts'), JSON.stringify(spec)],
      {
        maxBuffer: 1 << 20,
      },
    );
    return JSON.parse(stdout.trim().split('\n').at(-1)!) as LoadResult;
  } finally {
    server.closeAllConnections?.();
    await new Promise((closed) => server.close(closed));
  }
}

function listen(fetch: Handler): Promise<ServerType & { closeAllConnections?(): void }> {
  return new Promise((resolve) => {
    const server = serve({ fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(server));
  });
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

function positive(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value <= 0)
    throw new TypeError(`${name} must be a positive integer`);
  return value;
}

function rate(result: LoadResult): string {
  return Math.round(result.rps).toLocaleString('en-US');
}

function ms(result: LoadResult): string {
  return `${result.p99} ms`;
}

function ratio(a: LoadResult, b: LoadResult): string {
  return (a.rps / b.rps).toFixed(2);
}
