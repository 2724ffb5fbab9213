/**
 * The daemon of `bench/nodes.ts`, in a process of its own with a chosen broker concurrency:
 * `node --expose-gc bench/nodes-daemon.ts HOME CONCURRENCY`. Prints one JSON line once it
 * listens; SIGTERM closes it. Each `gc` line on its stdin runs a full garbage collection (when
 * started with `--expose-gc`) and answers `{"gc":true}`, so the bench reads the daemon's memory
 * without the garbage a run left, and without a hook in the daemon's own code. It closes when its
 * stdin ends (the bench gone).
 */
import { createInterface } from 'node:readline';
import { startDaemon } from '../src/index.ts';

const [home, concurrency] = process.argv.slice(2);
const daemon = await startDaemon({
  ...(home !== undefined && { home }),
  brokers: { concurrency: Number(concurrency ?? 8) },
  logLevel: 'warn',
  installSignalHandlers: true,
});
process.stdout.write(`${JSON.stringify({ pid: process.pid, socketPath: daemon.socketPath })}\n`);
const collect = (globalThis as { gc?: () => void }).gc;
// Its bench gone (its stdin ended), it goes too: a session of its own has no hang-up to hear.
process.stdin.once('end', () => void daemon.close());
createInterface({ input: process.stdin }).on('line', (line) => {
  if (line.trim() !== 'gc') return;
  collect?.();
  // What the collection left: the V8 heap in use, and what lives outside it (SQLite, buffers).
  const { heapUsed, heapTotal, external } = process.memoryUsage();
  const answer = { gc: collect !== undefined, heapUsed, heapTotal, external };
  process.stdout.write(`${JSON.stringify(answer)}\n`);
});
await daemon.closed;
process.exit(0);
