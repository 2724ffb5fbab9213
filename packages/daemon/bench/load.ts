/**
 * The load generator, run as its own process so it never shares an event loop with the server it
 * measures: `node load.ts '<autocannon options as JSON>'` prints one JSON summary line.
 */
import autocannon, { type Options } from 'autocannon';

const options = JSON.parse(process.argv[2] ?? '{}') as Options;
const result = await autocannon(options);
const summary = {
  requests: result.requests.total,
  rps: result.requests.total / result.duration,
  p50_ms: result.latency.p50,
  p99_ms: result.latency.p99,
  errors: result.errors + result.timeouts,
  non2xx: result.non2xx,
};
process.stdout.write(`${JSON.stringify(summary)}\n`);
