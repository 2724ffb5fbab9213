import { readFileSync } from 'node:fs';
import { LOG_LEVELS } from '@svc/protocol/home';
import type { Command } from 'commander';
import { action, type Context, type Runtime } from '../context.ts';
import { CliError, EXIT, UsageError } from '../errors.ts';
import { followLog, readLastLines, renderLogLine } from '../log-file.ts';
import { renderStatus } from '../output/views.ts';
import { parseListenAddress } from '../parse/listen.ts';
import { positive } from '../parse/number.ts';

const STOP_TIMEOUT_MS = 15_000;

export function registerDaemon(program: Command, runtime: Runtime): void {
  const daemon = program.command('daemon').description('start, stop and inspect the svc daemon');

  daemon
    .command('start')
    .description('start the daemon for the home (detached unless --foreground)')
    .option('--foreground', 'run in this process until Ctrl-C or SIGTERM')
    .option(
      '--tcp [[host:]port]',
      'also listen on TCP (127.0.0.1 unless a host is given; 0 or no port = any free port)',
    )
    .option('--brokers <n>', 'node brokers that run at once (default: SVC_BROKERS, else 4)')
    .option(
      '--sandbox <on|off>',
      "off runs agents' and scoped tokens' commands unconfined, with your whole account (default on)",
    )
    .option(
      '--log-level <level>',
      `how much logs/daemon.log holds: ${LOG_LEVELS.join(', ')} (default info; debug adds routine reads)`,
    )
    .action(action(runtime, start));

  daemon
    .command('stop')
    .description('ask the daemon to drain and exit; SIGTERM if it does not answer')
    .action(action(runtime, stop));

  daemon
    .command('status')
    .description('pid, socket, TCP address, uptime and version (exit 3 when not running)')
    .action(action(runtime, status));

  daemon
    .command('logs')
    .description("print the daemon's log (logs/daemon.log under the home)")
    .option('-n, --lines <n>', 'how many of the last lines', '50')
    .option('-f, --follow', 'keep printing new lines until Ctrl-C')
    .action(action(runtime, logs));
}

// `@svc/daemon` is loaded only by the commands that need it: the rest of the CLI is a client.
const loadDaemon = () => import('@svc/daemon');

async function start(
  ctx: Context,
  opts: {
    foreground?: boolean;
    tcp?: string | true;
    brokers?: string;
    logLevel?: string;
    sandbox?: string;
  },
) {
  const sandbox = opts.sandbox;
  if (sandbox !== undefined && sandbox !== 'on' && sandbox !== 'off') {
    throw new UsageError(`--sandbox must be on or off; received '${sandbox}'`);
  }
  // `--tcp` alone (DESIGN: "svc daemon start --tcp"): 127.0.0.1, any free port.
  const tcp =
    opts.tcp === undefined
      ? undefined
      : opts.tcp === true
        ? { port: 0 }
        : parseListenAddress(opts.tcp, '--tcp');
  const logLevel = opts.logLevel;
  if (logLevel !== undefined && !LOG_LEVELS.includes(logLevel)) {
    throw new UsageError(
      `--log-level must be one of ${LOG_LEVELS.join(', ')}; received '${logLevel}'`,
    );
  }
  const brokers =
    opts.brokers === undefined ? undefined : positive(opts.brokers, '--brokers', true);
  const { readLock, spawnDaemon, startDaemon } = await loadDaemon();
  const running = readLock(ctx.home);
  if (running) {
    throw new CliError(`another svc daemon (pid ${running.pid}) is running on ${ctx.home}`);
  }
  if (opts.foreground) {
    const handle = await startDaemon({
      home: ctx.home,
      tcp: tcp ?? false,
      ...(brokers !== undefined && { brokers: { concurrency: brokers } }),
      ...(logLevel !== undefined && { logLevel }),
      ...(sandbox !== undefined && { sandbox }),
      installSignalHandlers: true,
    });
    await printStatus(ctx);
    ctx.out.note('svc daemon running in the foreground; Ctrl-C stops it');
    await handle.closed;
    return EXIT.ok;
  }
  await spawnDaemon({
    home: ctx.home,
    // The address as parsed (trimmed, an IPv6 host in brackets), not the text as typed.
    ...(tcp !== undefined && { tcp: listenSpec(tcp) }),
    ...(brokers !== undefined && { brokers }),
    ...(logLevel !== undefined && { logLevel }),
    ...(sandbox !== undefined && { sandbox }),
  });
  return printStatus(ctx);
}

async function stop(ctx: Context) {
  const { readLock } = await loadDaemon();
  const running = readLock(ctx.home);
  if (!running) {
    ctx.out.result(
      { status: 'not_running', home: ctx.home },
      () => `svc daemon is not running on ${ctx.home}`,
    );
    return EXIT.ok;
  }
  let how = 'shutdown';
  try {
    const client = await ctx.client();
    await client.request('POST', '/v1/shutdown', {}, { maxRetries: 0, timeout: 5_000 });
  } catch {
    // The socket is gone or the daemon hangs: the lock's pid still owns the home, so signal it.
    how = 'SIGTERM';
    signal(running.pid, 'SIGTERM');
  }
  const deadline = Date.now() + STOP_TIMEOUT_MS;
  while (readLock(ctx.home) !== null || isAlive(running.pid)) {
    if (Date.now() > deadline) {
      throw new CliError(
        `the svc daemon (pid ${running.pid}) did not exit within ${STOP_TIMEOUT_MS / 1000} s; see: svc daemon logs`,
      );
    }
    await sleep(50);
  }
  ctx.out.result(
    { status: 'stopped', pid: running.pid, via: how },
    () => `stopped svc daemon (pid ${running.pid})`,
  );
  return EXIT.ok;
}

async function status(ctx: Context) {
  const { readLock } = await loadDaemon();
  if (!readLock(ctx.home)) {
    ctx.out.result(
      { status: 'not_running', home: ctx.home },
      () => `svc daemon is not running on ${ctx.home}`,
    );
    return EXIT.notRunning;
  }
  return printStatus(ctx);
}

async function printStatus(ctx: Context) {
  const client = await ctx.client();
  const answer = await client.system.status();
  ctx.out.result(answer, (colors) => renderStatus(answer, colors));
  return EXIT.ok;
}

async function logs(ctx: Context, opts: { lines: string; follow?: boolean }) {
  const count = Number(opts.lines);
  if (!Number.isSafeInteger(count) || count < 0) {
    throw new CliError(`--lines must be a whole number; received '${opts.lines}'`, EXIT.usage);
  }
  const print = (line: string) =>
    ctx.out.line(ctx.out.json ? line : renderLogLine(line, ctx.out.colors));
  const file = ctx.paths.logFile;
  const { lines, size } = await readLastLines(file, count);
  for (const line of lines) print(line);
  if (opts.follow) await followLog(file, size, print);
  return EXIT.ok;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    // EPERM: the pid exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  return !isZombie(pid);
}

/** An exited child nobody has reaped yet (a container's pid 1 may never reap) has stopped too. */
function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false;
  }
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `[HOST:]PORT` again from a parsed address, as the daemon's `--tcp` reads it. */
function listenSpec({ host, port }: { host?: string; port: number }): string {
  if (host === undefined) return String(port);
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}
