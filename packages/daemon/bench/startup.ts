/**
 * `npm run bench:startup`: how long svc takes to start, beside a bare `node -e ''` run in the same
 * rounds, and their ratio. Each round runs, one after another: the bare baseline, `svc
 * --version`, `svc status` (against a daemon that runs), `svc daemon start` to its return (the
 * daemon answers `/healthz`), `svc daemon stop`, and the daemon's own process from its spawn to
 * its first `/healthz` answer. BENCH_ROUNDS rounds (default 10), in a temporary home, after one
 * uncounted round that builds what is built on first use (the CLI's and the daemon's bundles).
 * Prints a markdown table of wall times: median and p90 (ms), and the median's ratio to bare.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { daemonBundle } from '../src/lifecycle/daemon-bundle.ts';
import { DAEMON_MAIN } from '../src/lifecycle/spawn.ts';

const ROUNDS = positive(process.env.BENCH_ROUNDS, 10);
const SVC = resolve(import.meta.dirname, '../../cli/bin/svc.js');
const run = promisify(execFile);
// Short, in /tmp: unix socket paths are limited to about 104 bytes.
const home = mkdtempSync('/tmp/svc-bench-start-');
const env = { ...process.env, SVC_HOME: '', SVC_BASE_URL: '', SVC_TOKEN: '', NO_COLOR: '1' };

/** Wall time of one process from spawn to exit, in ms; it must exit 0. */
async function timed(args: string[]): Promise<number> {
  const t0 = performance.now();
  await run(process.execPath, args, { env });
  return performance.now() - t0;
}

const svc = (...args: string[]) => timed([SVC, '--home', home, ...args]);

/** The daemon process alone: spawn to its first `/healthz` answer, then SIGTERM and its exit. */
async function daemonProcess(entry: string): Promise<number> {
  const dir = join(home, 'alone');
  const t0 = performance.now();
  const child = spawn(
    process.execPath,
    ['--disable-warning=ExperimentalWarning', entry, '--home', dir],
    // As `spawnDaemon` runs it: with the home's compile cache from the start.
    { stdio: 'ignore', env: { ...process.env, NODE_COMPILE_CACHE: join(dir, 'cache', 'node') } },
  );
  const exited = new Promise((done) => child.once('exit', done));
  // Bounded: 2,000 tries at 5 ms apart at most.
  for (let i = 0; i < 2_000 && !(await healthy(join(dir, 'daemon.sock'))); i++) {
    await new Promise((done) => setTimeout(done, 5));
  }
  const ms = performance.now() - t0;
  child.kill('SIGTERM');
  await exited;
  return ms;
}

function healthy(socketPath: string): Promise<boolean> {
  return new Promise((done) => {
    const req = request({ socketPath, path: '/healthz' }, (res) => {
      res.resume();
      done(res.statusCode === 200);
    });
    req.once('error', () => done(false));
    req.end();
  });
}

const rows = new Map<string, number[]>();
const add = (name: string, ms: number) => rows.set(name, [...(rows.get(name) ?? []), ms]);

try {
  const entry = (await daemonBundle()) ?? DAEMON_MAIN;
  for (let round = 0; round <= ROUNDS; round++) {
    const counted = round > 0; // the first round builds and warms what later ones reuse
    const sample = async (name: string, ms: Promise<number>) => {
      const value = await ms;
      if (counted) add(name, value);
    };
    await sample("bare `node -e ''`", timed(['-e', '']));
    await sample('`svc --version`', svc('--version'));
    await sample('`svc daemon start` (to ready)', svc('daemon', 'start'));
    await sample('`svc status`', svc('status'));
    await sample('`svc daemon stop`', svc('daemon', 'stop'));
    await sample('daemon process: spawn → `/healthz`', daemonProcess(entry));
  }
  const bare = median(rows.get("bare `node -e ''`")!);
  console.log(
    [
      `${ROUNDS} rounds; the daemon runs ${entry === DAEMON_MAIN ? 'its sources (no bundle)' : 'its bundle'}`,
      '',
      "| command | median (ms) | p90 (ms) | median ÷ bare `node -e ''` |",
      '|---|---|---|---|',
      ...[...rows].map(
        ([name, values]) =>
          `| ${name} | ${median(values).toFixed(0)} | ${pct(values, 90).toFixed(0)} | ${(median(values) / bare).toFixed(1)}× |`,
      ),
    ].join('\n'),
  );
} finally {
  await svc('daemon', 'stop').catch(() => {});
  rmSync(home, { recursive: true, force: true });
}

function median(values: number[]): number {
  return pct(values, 50);
}

function pct(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

function positive(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return Number.isFinite(n) && n > 0 ? n : fallback;
}
