/**
 * The daemon of `bench/nodes.ts`, in a process of its own with a chosen broker concurrency:
 * `node bench/nodes-daemon.ts HOME CONCURRENCY`. Prints one JSON line once it listens; SIGTERM
 * closes it.
 */
import { startDaemon } from '../src/index.ts';

const [home, concurrency] = process.argv.slice(2);
const daemon = await startDaemon({
  ...(home !== undefined && { home }),
  brokers: { concurrency: Number(concurrency ?? 8) },
  logLevel: 'warn',
  installSignalHandlers: true,
});
process.stdout.write(`${JSON.stringify({ pid: process.pid, socketPath: daemon.socketPath })}\n`);
await daemon.closed;
process.exit(0);
