/**
 * The daemon process: `node src/main.ts [--home DIR] [--tcp [HOST:]PORT] [--log-level LEVEL]`.
 * SIGTERM or SIGINT (or `POST /v1/shutdown`) drains requests, ends event streams, closes the
 * database, removes socket and lock, and exits 0. A start failure prints one line and exits 1.
 */
import { parseArgs } from 'node:util';
import { startDaemon } from './daemon.ts';
import { parseTcpSpec } from './listeners/tcp.ts';

try {
  const { values } = parseArgs({
    options: {
      home: { type: 'string' },
      tcp: { type: 'string' },
      'log-level': { type: 'string' },
      foreground: { type: 'boolean' },
    },
    strict: true,
  });
  const daemon = await startDaemon({
    ...(values.home !== undefined && { home: values.home }),
    ...(values.tcp !== undefined && { tcp: parseTcpSpec(values.tcp) }),
    ...(values['log-level'] !== undefined && { logLevel: values['log-level'] }),
    installSignalHandlers: true,
  });
  await daemon.closed;
  process.exit(0);
} catch (error) {
  process.stderr.write(`svc daemon: ${(error as Error).message}\n`);
  process.exit(1);
}
