/**
 * The baseline: a bare `node:http` server answering fixed JSON bytes, in its own process like the
 * daemon. `node bare-server.ts '{"socketPath"}' | '{"port":0}'` with the body in BENCH_BODY;
 * prints `{"port"}` or `{"socketPath"}` once listening, and exits on SIGTERM.
 */
import { createServer } from 'node:http';

const listen = JSON.parse(process.argv[2] ?? '{}') as { socketPath?: string; port?: number };
// A string, not a Buffer: node then sends head and body in one write(2), its fastest path.
const body = process.env.BENCH_BODY ?? '{}';
const headers = {
  'content-type': 'application/json',
  'content-length': String(Buffer.byteLength(body)),
};

const server = createServer((_req, res) => {
  res.writeHead(200, headers);
  res.end(body);
});
const ready = () => {
  const address = server.address();
  const where = typeof address === 'string' ? { socketPath: address } : { port: address?.port };
  process.stdout.write(`${JSON.stringify(where)}\n`);
};
if (listen.socketPath) server.listen(listen.socketPath, ready);
else server.listen(listen.port ?? 0, '127.0.0.1', ready);
process.on('SIGTERM', () => server.close(() => process.exit(0)));
