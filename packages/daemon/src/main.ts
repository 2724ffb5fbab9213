/**
 * The daemon process: `node src/main.ts [--home DIR] [--tcp [HOST:]PORT] [--log-level LEVEL]
 * [--brokers N] [--sandbox on|off]` (`--brokers`: brokers at once; default `SVC_BROKERS`, else 4;
 * `--sandbox off`: commands of nodes and scoped tokens run unconfined, and say so).
 * SIGTERM or SIGINT (or `POST /v1/shutdown`) drains requests, ends event streams, closes the
 * database, removes socket and lock, and exits 0. A start failure prints one line and exits 1.
 */
import { mkdirSync } from 'node:fs';
import { enableCompileCache } from 'node:module';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { resolveHome } from '@svc/protocol/home';

try {
  const { values } = parseArgs({
    options: {
      home: { type: 'string' },
      tcp: { type: 'string' },
      'log-level': { type: 'string' },
      brokers: { type: 'string' },
      foreground: { type: 'boolean' },
      sandbox: { type: 'string' },
    },
    strict: true,
  });
  // Before the daemon's modules load, so a restart reads them compiled: the cache the brokers
  // share, `<home>/cache/node`, in a home that is the person's alone.
  const home = resolveHome(values.home);
  mkdirSync(home, { recursive: true, mode: 0o700 });
  enableCompileCache(join(home, 'cache', 'node'));
  const { startDaemon } = await import('./daemon.ts');
  const { parseTcpSpec } = await import('./listeners/tcp.ts');
  const { parseConcurrency } = await import('./supervisor/supervisor.ts');
  const concurrency = parseConcurrency(values.brokers, '--brokers');
  const daemon = await startDaemon({
    home,
    ...(values.tcp !== undefined && { tcp: parseTcpSpec(values.tcp) }),
    ...(values['log-level'] !== undefined && { logLevel: values['log-level'] }),
    ...(concurrency !== undefined && { brokers: { concurrency } }),
    ...(values.sandbox !== undefined && { sandbox: sandboxMode(values.sandbox) }),
    installSignalHandlers: true,
  });
  await daemon.closed;
  process.exit(0);
} catch (error) {
  process.stderr.write(`svc daemon: ${(error as Error).message}\n`);
  process.exit(1);
}

/** `--sandbox on|off`: off is the person's explicit choice to run agents' commands unconfined. */
function sandboxMode(value: string): 'on' | 'off' {
  if (value === 'on' || value === 'off') return value;
  throw new TypeError(`--sandbox must be on or off; received ${JSON.stringify(value)}`);
}
