/// <reference types="node" />
// Serves one benchmark cell until Ctrl-C, to profile it:
//   node --cpu-prof bench/serve.ts 'archive 200' kit
// and drive it from another shell with bench/load.ts (or any load tool). It prints the row's
// URL, method, headers, body and, for the directory row, a file of tokens to send; on exit, the
// server's CPU microseconds per request answered.
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { createDirectory } from './directory.ts';
import { createRows, type Variant } from './scenarios.ts';

const [rowName = '', variant = 'kit'] = process.argv.slice(2);
const directory = createDirectory('https://directory.bench', 'http://127.0.0.1/plugins');
const row = (await createRows('bench-shared-token', directory)).find((r) => r.name === rowName);
if (row === undefined || !['kit', 'bare', 'hono'].includes(variant)) {
  console.error('usage: node bench/serve.ts "<row name>" kit|bare|hono');
  process.exit(2);
}
const tokensFile = row.tokens ? join(tmpdir(), `svc-bench-serve-${process.pid}.json`) : undefined;
if (tokensFile)
  writeFileSync(tokensFile, JSON.stringify(directory.mintPool(5_000, 'acme:tickets')));

let answered = 0;
let start: NodeJS.CpuUsage | undefined;
const server = serve(
  { fetch: row.handlers[variant as Variant], hostname: '127.0.0.1', port: 0 },
  async ({ port }) => {
    const url = `http://127.0.0.1:${port}${row.path}`;
    const headers = { ...row.headers };
    if (row.conditional) headers['if-none-match'] = (await fetch(url)).headers.get('etag') ?? '';
    console.log(JSON.stringify({ url, method: row.method, headers, body: row.body, tokensFile }));
  },
);
server.on('request', () => {
  start ??= process.cpuUsage(); // from the first request: module loading and minting excluded
  answered++;
});
process.on('SIGINT', () => {
  const used = process.cpuUsage(start);
  console.log(
    `${answered} requests, ${((used.user + used.system) / answered).toFixed(1)} µs CPU each`,
  );
  server.close();
  process.exit(0);
});
