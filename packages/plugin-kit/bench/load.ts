/// <reference types="node" />
// The load generator, run as its own process so it never shares the server's event loop:
// `node bench/load.ts '<LoadSpec JSON>'` prints one JSON `LoadResult` line.
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

export type LoadSpec = {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  /** A JSON file of distinct bearer tokens sent one per request, in turn. */
  tokensFile?: string;
  /** Where in the token file to start (slices of one run use disjoint tokens). */
  tokenOffset?: number;
  connections: number;
  seconds: number;
  warmupSeconds: number;
};

export type LoadResult = {
  rps: number;
  p99: number;
  requests: number;
  statuses: Record<'2xx' | '3xx' | '4xx' | '5xx', number>;
  errors: number;
};

const spec = JSON.parse(process.argv[2]!) as LoadSpec;
const tokens = spec.tokensFile
  ? (JSON.parse(readFileSync(spec.tokensFile, 'utf8')) as string[])
  : undefined;
let next = spec.tokenOffset ?? 0;

const result = await autocannon({
  url: spec.url,
  connections: spec.connections,
  duration: spec.seconds,
  ...(spec.warmupSeconds > 0 && {
    warmup: { connections: spec.connections, duration: spec.warmupSeconds },
  }),
  requests: [
    {
      method: spec.method,
      headers: spec.headers,
      ...(spec.body === undefined ? {} : { body: spec.body }),
      ...(tokens && {
        setupRequest: (request: { headers?: Record<string, string> }) => {
          const token = tokens[next++ % tokens.length];
          return { ...request, headers: { ...request.headers, authorization: `Bearer ${token}` } };
        },
      }),
    },
  ],
});

const output: LoadResult = {
  rps: result.requests.average,
  p99: result.latency.p99,
  requests: result.requests.total,
  statuses: {
    '2xx': result['2xx'],
    '3xx': result['3xx'],
    '4xx': result['4xx'],
    '5xx': result['5xx'],
  },
  errors: result.errors + result.timeouts,
};
console.log(JSON.stringify(output));
