/// <reference types="node" />
// Serves one benchmark cell until it is stopped: `npm run bench` starts one such process per
// variant, `bench:instructions` runs it under callgrind, and it serves alone for profiling:
//   node --cpu-prof bench/serve.ts 'archive 200' kit
// driven from another shell with bench/load.ts (or any load tool). On Node it serves with
// @hono/node-server; under Bun or Deno with their own `Bun.serve` / `Deno.serve`, whose Request
// and Response are the runtime's own (`bun bench/serve.ts …`, `deno run -A bench/serve.ts …`).
// It prints one JSON line: the row's URL, method, headers and body and, for the directory row,
// a file of tokens to send (signed by the key in $BENCH_DIRECTORY_KEY when set, so that every
// variant's process trusts the same directory). Stopped by SIGINT, it removes that file and, on
// Node, prints the server's CPU microseconds per request answered. BENCH_ADAPTER (hono, the
// default; srvx; remix) picks the adapter on Node, to show how much of a ratio is the adapter's.
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDirectory, DIRECTORY_KEY_ENV } from './directory.ts';
import { type NodeAdapter, nodeAdapter } from './knobs.ts';
import { allVariantsOf, createRows, type Handler, type Variant } from './scenarios.ts';

type Listen = (fetch: Handler) => Promise<{ port: number; onRequest?(count: () => void): void }>;
declare const Bun: { serve(options: object): { port: number } } | undefined;
declare const Deno: { serve(options: object, fetch: Handler): unknown; args: string[] } | undefined;

const [rowName = '', variant = 'kit'] =
  typeof Deno === 'undefined' ? process.argv.slice(2) : Deno.args;
const directory = createDirectory(
  'https://directory.bench',
  'http://127.0.0.1/plugins',
  process.env[DIRECTORY_KEY_ENV],
);
const row = (await createRows('bench-shared-token', directory)).find((r) => r.name === rowName);
const handler =
  row !== undefined && allVariantsOf(row).includes(variant as Variant)
    ? row.handlers[variant as Variant]
    : undefined;
if (row === undefined || handler === undefined) {
  console.error(
    'usage: node bench/serve.ts "<row name>" kit|bare|hono|minimal|reads (the last two: the no-auth and token rows)',
  );
  process.exit(2);
}
// Under `npm run bench` the parent holds the key and the tokens; alone, this process mints some.
const tokensFile =
  row.tokens && process.env[DIRECTORY_KEY_ENV] === undefined
    ? join(tmpdir(), `svc-bench-serve-${process.pid}.json`)
    : undefined;
if (tokensFile)
  writeFileSync(tokensFile, JSON.stringify(directory.mintPool(5_000, 'acme:tickets')));

const listen: Listen =
  typeof Bun !== 'undefined'
    ? async (fetch) => Bun.serve({ fetch, hostname: '127.0.0.1', port: 0 })
    : typeof Deno !== 'undefined'
      ? (fetch) =>
          new Promise((listening) => {
            Deno.serve(
              { hostname: '127.0.0.1', port: 0, onListen: listening as (at: object) => void },
              fetch,
            );
          })
      : nodeListen(nodeAdapter());

/** Node's listen: on @hono/node-server, the default, or on another adapter to compare with. */
function nodeListen(adapter: NodeAdapter): Listen {
  if (adapter === 'hono') {
    return async (fetch) => {
      const { serve } = await import('@hono/node-server');
      return new Promise((listening) => {
        const server = serve({ fetch, hostname: '127.0.0.1', port: 0 }, ({ port }) =>
          listening({ port, onRequest: (count) => server.on('request', count) }),
        );
      });
    };
  }
  if (adapter === 'srvx') {
    return async (fetch) => {
      const { serve } = await import('srvx/node');
      const server = serve({ fetch, hostname: '127.0.0.1', port: 0, silent: true });
      await server.ready();
      const node = server.node?.server;
      if (node === undefined) throw new Error('srvx did not start a Node server');
      const { port } = node.address() as { port: number };
      return { port, onRequest: (count) => node.on('request', count) };
    };
  }
  return async (fetch) => {
    const { createRequestListener } = await import('@remix-run/node-fetch-server');
    const { createServer } = await import('node:http');
    const node = createServer(createRequestListener(fetch));
    await new Promise<void>((done) => node.listen(0, '127.0.0.1', done));
    const { port } = node.address() as { port: number };
    return { port, onRequest: (count) => node.on('request', count) };
  };
}

const { port, onRequest } = await listen(handler);
const url = `http://127.0.0.1:${port}${row.path}`;
const headers = { ...row.headers };
if (row.conditional) headers['if-none-match'] = (await fetch(url)).headers.get('etag') ?? '';
console.log(JSON.stringify({ url, method: row.method, headers, body: row.body, tokensFile }));

let answered = 0;
let start: NodeJS.CpuUsage | undefined;
onRequest?.(() => {
  start ??= process.cpuUsage(); // from the first request: module loading and minting excluded
  answered++;
});
process.on('SIGINT', () => {
  if (tokensFile !== undefined) rmSync(tokensFile, { force: true });
  if (answered > 0) {
    const used = process.cpuUsage(start);
    const each = (used.user + used.system) / answered;
    console.log(`${answered} requests, ${each.toFixed(1)} µs CPU each`);
  }
  process.exit(0);
});
