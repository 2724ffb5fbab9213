/**
 * `npm run bench -w @svc/daemon`: the daemon's authenticated `GET /v1/status` beside a bare
 * `node:http` server answering the same JSON bytes on the same kind of listener, measured in the
 * same run, plus the client's per-call overhead against plain `fetch`. Prints a markdown table.
 *
 * Env: BENCH_SECONDS (per side, default 5; the client row takes twice that), BENCH_SLICES
 * (default 5), BENCH_CONNECTIONS (default 10).
 * The daemon, each bare server and each load generator run in their own processes; 127.0.0.1 only.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { Svc } from '@svc/client';
import { createLocalClient } from '@svc/client/node';
import { spawnDaemon } from '../src/index.ts';

const SECONDS = positive(process.env.BENCH_SECONDS, 5);
// Each side's time is cut in slices run in turn (daemon, bare, daemon, …), so a neighbour's load
// or a change of CPU speed during the run hits both sides alike instead of one.
const SLICES = positive(process.env.BENCH_SLICES, 5);
const CONNECTIONS = positive(process.env.BENCH_CONNECTIONS, 10);
const TARGET_SERVER = 0.6;
const TARGET_CLIENT = 0.9;

interface Load {
  requests: number;
  rps: number;
  p50_ms: number;
  p99_ms: number;
  errors: number;
  non2xx: number;
}

interface Target {
  /** The server's pid, to read the CPU time it spent serving. */
  pid: number;
  url: string;
  socketPath?: string;
  headers?: Record<string, string>;
}

const run = promisify(execFile);
const here = import.meta.dirname;
// Short, in /tmp: unix socket paths are limited to about 104 bytes.
const home = mkdtempSync('/tmp/svc-bench-');
const children: ChildProcess[] = [];
let daemonPid: number | undefined;

try {
  const daemon = await spawnDaemon({ home, tcp: '127.0.0.1:0' });
  daemonPid = daemon.pid;
  const local = createLocalClient({ home });
  const { base_url: baseUrl, token } = (await local.request('POST', '/v1/connect', {})) as {
    base_url: string;
    token: string;
  };
  const headers = { authorization: `Bearer ${token}` };
  const statusUrl = `${baseUrl}/v1/status`;
  const answer = await fetch(statusUrl, { headers });
  if (!answer.ok) throw new Error(`GET /v1/status answered ${answer.status}`);
  const body = await answer.text();

  const bareTcp = await startBare({ port: 0 }, body);
  const pid = daemon.pid;
  const bareUnix = await startBare({ socketPath: join(home, 'bare.sock') }, body);

  const servers: { name: string; daemon: Target; bare: Target }[] = [
    {
      name: 'TCP 127.0.0.1',
      daemon: { pid, url: statusUrl, headers },
      bare: { pid: bareTcp.pid, url: `http://127.0.0.1:${bareTcp.port}/v1/status`, headers },
    },
    {
      name: 'unix socket',
      daemon: { pid, url: 'http://localhost/v1/status', socketPath: daemon.socketPath, headers },
      bare: {
        pid: bareUnix.pid,
        url: 'http://localhost/v1/status',
        socketPath: bareUnix.socketPath ?? '',
        headers,
      },
    },
  ];

  const serverRows: string[] = [];
  for (const { name, daemon: ours, bare } of servers) {
    await load(ours, 1);
    await load(bare, 1);
    const [a, b] = await interleaved(ours, bare);
    // A side answering errors would be measured doing something else.
    for (const [side, result] of [
      ['daemon', a],
      ['bare', b],
    ] as const) {
      if (result.non2xx + result.errors > 0) {
        throw new Error(`${side} over ${name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
      }
    }
    serverRows.push(
      row([
        `GET /v1/status, ${name}`,
        fmt(a.rps, 0),
        fmt(b.rps, 0),
        verdict(a.rps / b.rps, TARGET_SERVER),
        fmt(a.p99_ms, 1),
        fmt(b.p99_ms, 1),
        cpu(a.cpu_us),
        cpu(b.cpu_us),
      ]),
    );
  }

  const client = new Svc({ baseUrl, token });
  const viaClient = () => client.system.status();
  const viaFetch = async () => (await fetch(statusUrl, { headers })).json();
  // Twice as long as a server row: one call at a time swings more from slice to slice, and the
  // difference sought (a few µs in some 300) is small beside that.
  const [clientRate, fetchRate] = await alternate(viaClient, viaFetch, SECONDS * 2);

  process.stdout.write(
    [
      `# svc daemon benchmark (${SECONDS} s per side in ${SLICES} alternating slices, ${CONNECTIONS} connections, Node ${process.versions.node}; p50/p99: median of the slices)`,
      '',
      row([
        'route, listener',
        'daemon req/s',
        'bare node:http req/s',
        `ratio (target ≥ ${TARGET_SERVER})`,
        'daemon p99 ms',
        'bare p99 ms',
        'daemon CPU µs/req',
        'bare CPU µs/req',
      ]),
      row(['---', '---:', '---:', '---:', '---:', '---:', '---:', '---:']),
      ...serverRows,
      '',
      row([
        'sequential calls, TCP',
        'client.system.status() calls/s',
        'fetch calls/s',
        `ratio (target ≥ ${TARGET_CLIENT})`,
      ]),
      row(['---', '---:', '---:', '---:']),
      row([
        'GET /v1/status, one at a time',
        fmt(clientRate, 0),
        fmt(fetchRate, 0),
        verdict(clientRate / fetchRate, TARGET_CLIENT),
      ]),
      '',
    ].join('\n'),
  );
} finally {
  for (const child of children) child.kill('SIGTERM');
  if (daemonPid !== undefined) await stopProcess(daemonPid);
  rmSync(home, { recursive: true, force: true });
}

/**
 * autocannon in a child process against one target, plus the server's CPU time per request: on
 * a shared machine throughput moves with the neighbours' load, CPU per request much less.
 */
async function load(target: Target, seconds: number): Promise<Measured> {
  const { pid, ...where } = target;
  const options = { ...where, connections: CONNECTIONS, duration: seconds };
  const before = cpuMicros(pid);
  const { stdout } = await run(process.execPath, [join(here, 'load.ts'), JSON.stringify(options)], {
    timeout: (seconds + 30) * 1000,
  });
  const after = cpuMicros(pid);
  const result = JSON.parse(stdout) as Load;
  const cpu_us = before === null || after === null ? null : (after - before) / result.requests;
  return { ...result, cpu_us };
}

/**
 * `a` and `b` loaded in alternating slices of `SECONDS / SLICES` each, in the order a b b a a b …
 * so neither always goes first; requests and CPU summed, rates over the summed time, p50/p99 the
 * median of the slices'.
 */
async function interleaved(a: Target, b: Target): Promise<[Measured, Measured]> {
  const slices: [Measured[], Measured[]] = [[], []];
  for (let i = 0; i < SLICES; i++) {
    for (const side of abba(i)) slices[side].push(await load(side === 0 ? a : b, SECONDS / SLICES));
  }
  return [combine(slices[0]), combine(slices[1])];
}

/**
 * The order of the two sides in slice `i`: 0 then 1, then 1 then 0, and so on. Whichever side
 * runs second in a slice meets what the first left behind (garbage to collect, a warmer or
 * cooler machine); alternating the order shares that between the two.
 */
function abba(i: number): readonly [0 | 1, 0 | 1] {
  return i % 2 === 0 ? [0, 1] : [1, 0];
}

function combine(parts: Measured[]): Measured {
  const sum = (f: (m: Measured) => number) => parts.reduce((total, m) => total + f(m), 0);
  const median = (f: (m: Measured) => number) => {
    const sorted = parts.map(f).sort((x, y) => x - y);
    return sorted[Math.floor(sorted.length / 2)] ?? 0;
  };
  const requests = sum((m) => m.requests);
  const cpuKnown = parts.every((m) => m.cpu_us !== null);
  return {
    requests,
    rps: requests / sum((m) => (m.rps > 0 ? m.requests / m.rps : 0)),
    p50_ms: median((m) => m.p50_ms),
    p99_ms: median((m) => m.p99_ms),
    errors: sum((m) => m.errors),
    non2xx: sum((m) => m.non2xx),
    cpu_us: cpuKnown ? sum((m) => (m.cpu_us ?? 0) * m.requests) / requests : null,
  };
}

type Measured = Load & { cpu_us: number | null };

/** User + system CPU time of a process from /proc (Linux; clock ticks of 10 ms), else null. */
function cpuMicros(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14 and 15 of proc(5) (utime, stime) are the 12th and 13th after the state field.
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return null;
  }
}

async function startBare(
  listen: { port: number } | { socketPath: string },
  body: string,
): Promise<{ pid: number; port?: number; socketPath?: string }> {
  const child = spawn(process.execPath, [join(here, 'bare-server.ts'), JSON.stringify(listen)], {
    env: { ...process.env, BENCH_BODY: body },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  const lines = createInterface({ input: child.stdout! });
  for await (const line of lines) {
    return { pid: child.pid ?? 0, ...(JSON.parse(line) as { port?: number; socketPath?: string }) };
  }
  throw new Error('the bare server exited before listening');
}

/**
 * Sequential calls of `a` and `b` in alternating slices (order as `abba`), so drift of the
 * machine (other load, CPU frequency) and the garbage one leaves for the other hit both alike.
 * Returns calls per second of each.
 */
async function alternate(
  a: () => Promise<unknown>,
  b: () => Promise<unknown>,
  seconds: number,
): Promise<[number, number]> {
  // Warm: both paths optimised by the JIT before anything is counted.
  for (let i = 0; i < 1000; i++) {
    await a();
    await b();
  }
  const slices = Math.max(4, Math.round(seconds * 4));
  const sliceMs = (seconds * 1000) / slices;
  const totals = [
    { calls: 0, ms: 0 },
    { calls: 0, ms: 0 },
  ];
  for (let slice = 0; slice < slices; slice++) {
    for (const i of abba(slice)) {
      const fn = i === 0 ? a : b;
      const start = performance.now();
      let calls = 0;
      while (performance.now() - start < sliceMs) {
        await fn();
        calls++;
      }
      totals[i]!.calls += calls;
      totals[i]!.ms += performance.now() - start;
    }
  }
  return [totals[0]!.calls / (totals[0]!.ms / 1000), totals[1]!.calls / (totals[1]!.ms / 1000)];
}

async function stopProcess(pid: number): Promise<void> {
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return;
  }
  for (let i = 0; i < 100; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
  }
  process.kill(pid, 'SIGKILL');
}

function row(cells: string[]): string {
  return `| ${cells.join(' | ')} |`;
}

function fmt(n: number, digits: number): string {
  return n.toLocaleString('en-US', {
    maximumFractionDigits: digits,
    minimumFractionDigits: digits,
  });
}

function cpu(micros: number | null): string {
  return micros === null ? 'n/a' : fmt(micros, 0);
}

function verdict(ratio: number, target: number): string {
  return `${ratio.toFixed(2)} ${ratio >= target ? 'ok' : 'MISSED'}`;
}

function positive(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return value !== undefined && Number.isFinite(n) && n > 0 ? n : fallback;
}
