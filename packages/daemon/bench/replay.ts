/**
 * `npm run bench:replay`: many `/v1/events` readers replaying a backlog at once must not stall
 * the daemon. BENCH_READERS streams (default 200) open together, each replaying BENCH_BACKLOG
 * events (default 1,500) with `?follow=false`, while a prober asks `GET /v1/status` one request
 * after another; the p50/p99/max of those answers is set beside the same prober on the idle
 * daemon, measured in the same run, and their ratio. Prints a markdown table.
 *
 * The daemon (`bench/nodes-daemon.ts`), the readers (this file with `--readers`) and the prober
 * (this process) run in processes of their own, so a reader's parsing never delays a probe's
 * clock. The backlog is written into the home's database before the daemon starts, rows like the
 * events a node records, so filling it costs the run nothing.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { DatabaseSync } from 'node:sqlite';

const READERS = positive(process.env.BENCH_READERS, 200);
const BACKLOG = positive(process.env.BENCH_BACKLOG, 1_500);
const IDLE_PROBES = 200;
const FRAME = '\n\nid: ';
const here = import.meta.dirname;

if (process.argv[2] === '--readers') {
  await readers(process.argv[3]!, process.argv[4]!, Number(process.argv[5]));
  process.exit(0);
}

// Short, in /tmp: unix socket paths are limited to about 104 bytes.
const home = mkdtempSync('/tmp/svc-bench-replay-');
const children: ChildProcess[] = [];
try {
  // Once to make the home and its database, then again on the filled database.
  let daemon = await startDaemon();
  await stop(daemon.child);
  fillBacklog(join(home, 'svc.db'), BACKLOG);
  daemon = await startDaemon();
  const token = readFileSync(join(home, 'owner.token'), 'utf8').trim();
  const get = (path: string) => timedGet(daemon.socketPath, token, path);

  for (let i = 0; i < 20; i++) await get('/v1/status'); // warm-up
  const idle: number[] = [];
  for (let i = 0; i < IDLE_PROBES; i++) idle.push((await get('/v1/status')).ms);

  const reading = spawn(
    process.execPath,
    [
      '--disable-warning=ExperimentalWarning',
      import.meta.filename,
      '--readers',
      daemon.socketPath,
      token,
      String(READERS),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  children.push(reading);
  const lines = createInterface({ input: reading.stdout! });
  const next = () => new Promise<string>((resolve) => lines.once('line', resolve));
  await next(); // every stream opened
  const t0 = performance.now();
  const finished = new Promise<{ events: number; streams: number }>((resolve) => {
    void next().then((line) => resolve(JSON.parse(line) as { events: number; streams: number }));
  });
  let done: { events: number; streams: number } | null = null;
  void finished.then((d) => {
    done = d;
  });
  const busy: number[] = [];
  while (done === null) busy.push((await get('/v1/status')).ms);
  const replayMs = performance.now() - t0;
  const { events, streams } = done as { events: number; streams: number };
  await stop(daemon.child);

  const rows = [
    row('`GET /v1/status` p50 (ms)', pct(busy, 50), pct(idle, 50)),
    row('`GET /v1/status` p99 (ms)', pct(busy, 99), pct(idle, 99)),
    row('`GET /v1/status` max (ms)', Math.max(...busy), Math.max(...idle)),
  ];
  console.log(
    [
      `${streams} of ${READERS} readers replayed ${events} events (${BACKLOG} each) in ${(replayMs / 1000).toFixed(1)} s; ${busy.length} status probes meanwhile, ${idle.length} on the idle daemon`,
      '',
      '| figure | during the replay | idle daemon (baseline) | ratio |',
      '|---|---|---|---|',
      ...rows,
    ].join('\n'),
  );
} finally {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(home, { recursive: true, force: true });
}

function row(name: string, ours: number, bare: number): string {
  return `| ${name} | ${ours.toFixed(1)} | ${bare.toFixed(1)} | ${(ours / bare).toFixed(1)}× |`;
}

/** `count` events shaped like a node's (a tool call with its output), as the daemon writes them. */
function fillBacklog(file: string, count: number): void {
  const db = new DatabaseSync(file);
  const insert = db.prepare(
    'INSERT INTO events (kind, subject, payload, created_at) VALUES (?, ?, ?, ?)',
  );
  db.exec('BEGIN');
  for (let i = 0; i < count; i++) {
    const payload = {
      node_id: 'node_bench',
      turn_index: i,
      tool_call: { id: `call_${i}`, name: 'bash', status: 'ok', output: 'x'.repeat(200) },
    };
    insert.run('node.tool', 'node_bench', JSON.stringify(payload), new Date().toISOString());
  }
  db.exec('COMMIT');
  db.close();
}

function startDaemon(): Promise<{ child: ChildProcess; socketPath: string }> {
  const child = spawn(
    process.execPath,
    ['--disable-warning=ExperimentalWarning', join(here, 'nodes-daemon.ts'), home, '1'],
    // Its stdin held open: the bench daemon ends with it (nodes-daemon.ts). A session of its own,
    // as `svc daemon start` runs it.
    { stdio: ['pipe', 'pipe', 'inherit'], detached: true },
  );
  children.push(child);
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the bench daemon exited (${code})`)));
    createInterface({ input: child.stdout! }).once('line', (line) => {
      resolve({ child, socketPath: (JSON.parse(line) as { socketPath: string }).socketPath });
    });
  });
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

function timedGet(socketPath: string, token: string, path: string): Promise<{ ms: number }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      { socketPath, path, headers: { authorization: `Bearer ${token}` } },
      (res) => {
        res.resume();
        res.once('end', () => resolve({ ms: performance.now() - t0 }));
      },
    );
    req.once('error', reject);
    req.end();
  });
}

/**
 * The readers' process: opens `count` streams, prints a line once every one has its answer's
 * head, then reads them to their end, counting events, and prints the totals.
 */
async function readers(socketPath: string, token: string, count: number): Promise<void> {
  let events = 0;
  let streams = 0;
  const bodies = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<NodeJS.ReadableStream>((resolve, reject) => {
          const req = request(
            {
              socketPath,
              path: '/v1/events?after=0&follow=false',
              headers: { authorization: `Bearer ${token}` },
            },
            resolve,
          );
          req.once('error', reject);
          req.end();
        }),
    ),
  );
  process.stdout.write('open\n');
  await Promise.all(
    bodies.map(
      (body) =>
        new Promise<void>((resolve) => {
          // Every event frame follows a blank line (the first follows `: open`): count
          // `\n\nid: `, carrying 5 characters over so a frame split between chunks counts once.
          let tail = '';
          body.setEncoding('utf8');
          body.on('data', (chunk: string) => {
            const text = tail + chunk;
            for (let at = text.indexOf(FRAME); at !== -1; at = text.indexOf(FRAME, at + 1)) {
              events++;
            }
            tail = text.slice(-(FRAME.length - 1));
          });
          body.once('end', () => {
            streams++;
            resolve();
          });
        }),
    ),
  );
  process.stdout.write(`${JSON.stringify({ events, streams })}\n`);
}

function pct(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

function positive(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return Number.isFinite(n) && n > 0 ? n : fallback;
}
