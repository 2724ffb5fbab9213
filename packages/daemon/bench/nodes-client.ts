/**
 * The bench daemon of `nodes.ts` (`nodes-daemon.ts`, a process of its own) and how the bench
 * talks to it: calls with the owner token, `/v1/events` watchers, and what it reads back (turn
 * gaps, broker starts).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { DatabaseSync } from 'node:sqlite';
import { Agent, fetch, type Response } from 'undici';
import { ALLOCATOR_ENV } from '../src/lifecycle/spawn.ts';

export interface EventDto {
  seq: number;
  kind: string;
  subject_id: string | null;
  payload: Record<string, unknown>;
  created_at: string;
}

export interface DaemonHeap {
  gc: boolean;
  heapUsed: number;
  /** The V8 heap's committed size, in use or not. */
  heapTotal: number;
  external: number;
}

export interface BenchDaemon {
  child: ChildProcess;
  socketPath: string;
  /** `retry`: a non-GET sent again if its connection is reset (with an Idempotency-Key). */
  call(
    path: string,
    init?: { method?: string; body?: unknown; retry?: boolean },
  ): Promise<Record<string, unknown>>;
  /**
   * A full garbage collection in the daemon (`gc` false when it cannot: no `--expose-gc`), and
   * its V8 heap in use and committed and its external memory after it, in bytes.
   */
  gc(): Promise<DaemonHeap>;
  /** SIGTERM, and its exit. */
  stop(): Promise<void>;
}

export async function startBenchDaemon(home: string, concurrency: number): Promise<BenchDaemon> {
  const child = spawn(
    process.execPath,
    [
      '--disable-warning=ExperimentalWarning',
      '--expose-gc',
      // BENCH_CPU_PROF=DIR: the daemon's CPU profile, written there when it exits (Node refuses
      // `--cpu-prof` in NODE_OPTIONS).
      ...(process.env.BENCH_CPU_PROF
        ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`]
        : []),
      join(import.meta.dirname, 'nodes-daemon.ts'),
      home,
      String(concurrency),
    ],
    // As `svc daemon start` runs it: the daemon's allocator settings, and a session of its own
    // (where the kernel shares the CPU by session, autogroup, a daemon in the bench's session
    // would split one share with the bench's 50 watchers).
    {
      stdio: ['pipe', 'pipe', 'inherit'],
      env: { ...ALLOCATOR_ENV, ...process.env },
      detached: true,
    },
  );
  // Its stdout's lines in order: first where it listens, then one per `gc` asked.
  const lines = createInterface({ input: child.stdout! });
  const waiting: ((line: string) => void)[] = [];
  lines.on('line', (line) => waiting.shift()?.(line));
  const nextLine = () =>
    new Promise<string>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`the bench daemon exited (${code})`)));
      waiting.push(resolve);
    });
  const socketPath = (JSON.parse(await nextLine()) as { socketPath: string }).socketPath;
  const dispatcher = new Agent({ connect: { socketPath }, connections: 128 });
  const token = readFileSync(join(home, 'owner.token'), 'utf8').trim();
  return {
    child,
    socketPath,
    async call(path, init = {}) {
      const method = init.method ?? 'GET';
      // A kept-alive connection the daemon closes as a request goes out is reset (seen at load
      // 25): a GET is sent again, and so is a call marked `retry`, under one Idempotency-Key so
      // a create is never doubled. Only where asked: the key costs the daemon a write.
      const retry = method === 'GET' || init.retry === true;
      const headers: Record<string, string> = {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        ...(method !== 'GET' && retry && { 'idempotency-key': `bench-${randomUUID()}` }),
      };
      let res: Response | undefined;
      for (let attempt = 1; res === undefined; attempt++) {
        try {
          res = await fetch(`http://localhost${path}`, {
            method,
            headers,
            ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
            dispatcher,
          });
        } catch (error) {
          const code = ((error as Error).cause as { code?: string } | undefined)?.code;
          if (!retry || attempt >= 3 || (code !== 'ECONNRESET' && code !== 'EPIPE')) throw error;
          process.stderr.write(`bench: ${method} ${path}: ${code}, sent again\n`);
        }
      }
      if (!res.ok) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
      return res.json() as Promise<Record<string, unknown>>;
    },
    async gc() {
      const answer = nextLine();
      child.stdin!.write('gc\n');
      return JSON.parse(await answer) as DaemonHeap;
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      await dispatcher.close();
    },
  };
}

/**
 * An event as a watcher got it: its kind and `created_at` read off the frame, the rest parsed
 * only when asked (`dto`), so 50 watchers do not parse every event 50 times.
 */
export interface WatchedEvent {
  kind: string;
  /** `created_at`, in ms since the epoch. */
  createdAt: number;
  dto(): EventDto;
}

// `created_at` texts already parsed: the watchers read the same events one after another.
const parsedTimes = new Map<string, number>();

function timeOf(text: string): number {
  let ms = parsedTimes.get(text);
  if (ms === undefined) {
    if (parsedTimes.size > 10_000) parsedTimes.clear();
    ms = Date.parse(text);
    parsedTimes.set(text, ms);
  }
  return ms;
}

/** One SSE frame's event (`id:`, `event:`, `data:` the event's JSON), or `null` for a comment. */
function watchedEvent(frame: string): WatchedEvent | null {
  const kindAt = frame.indexOf('event: ');
  const dataAt = frame.indexOf('\ndata: ');
  if (kindAt === -1 || dataAt === -1) return null;
  const kind = frame.slice(kindAt + 7, frame.indexOf('\n', kindAt));
  const data = frame.slice(dataAt + 7);
  // The daemon writes `created_at` last (`EventDto`'s key order).
  const timeAt = data.lastIndexOf('"created_at":"') + 14;
  const createdAt = timeOf(data.slice(timeAt, data.indexOf('"', timeAt)));
  let dto: EventDto | undefined;
  return {
    kind,
    createdAt,
    dto: () => {
      dto ??= JSON.parse(data) as EventDto;
      return dto;
    },
  };
}

/**
 * One SSE watcher of `/v1/events`; `onEvent` gets each event and when its bytes arrived. Over
 * `node:http` on a connection of its own, its frames cut from the text as it comes: a light
 * instrument on the same 2 cores as the daemon it measures (undici and a web stream per
 * watcher cost the bench about as much CPU as the daemon's fan-out to them).
 */
export function watch(
  daemon: BenchDaemon,
  home: string,
  onEvent: (e: WatchedEvent, at: number) => void,
  /** From after this seq (`?after=`): the backlog before it is not sent. Default: all of it. */
  after?: number,
): { ready: Promise<unknown>; close(): void } {
  const token = readFileSync(join(home, 'owner.token'), 'utf8').trim();
  let closed = false;
  const req = request({
    socketPath: daemon.socketPath,
    path: after === undefined ? '/v1/events' : `/v1/events?after=${after}`,
    headers: { authorization: `Bearer ${token}` },
    agent: false,
  });
  const ready = new Promise<void>((resolve, reject) => {
    req.once('error', (error) => {
      if (!closed) reject(error);
    });
    req.once('response', (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        reject(new Error(`GET /v1/events answered ${res.statusCode}`));
        return;
      }
      res.setEncoding('utf8');
      res.on('error', () => {}); // closed by the bench
      let buffer = '';
      res.on('data', (text: string) => {
        const at = Date.now();
        buffer += text;
        let from = 0;
        for (let cut = buffer.indexOf('\n\n'); cut !== -1; cut = buffer.indexOf('\n\n', from)) {
          const event = watchedEvent(buffer.slice(from, cut));
          if (event !== null) onEvent(event, at);
          from = cut + 2;
        }
        buffer = buffer.slice(from);
      });
      resolve();
    });
  });
  req.end();
  return {
    ready,
    close: () => {
      closed = true;
      req.destroy();
    },
  };
}

/**
 * Per node: each turn's end to the next turn's start, minus the bash command's own duration
 * (what the daemon and broker cost between two model turns).
 */
export function turnOverheads(events: EventDto[]): number[] {
  return turnGaps(events).map((gap) => gap.ms);
}

/**
 * What a turn called, as `turnGaps` tells the turn before a gap: `bash` if it ran a command (its
 * gap holds the command's records and the next call), else `report` if it reported (its report
 * rides with its result), else `other`.
 */
export type TurnKind = 'bash' | 'report' | 'other';

/** `turnOverheads`, each gap with the kind of the turn before it. */
export function turnGaps(events: EventDto[]): { after: TurnKind; ms: number }[] {
  const turns = events
    .filter((e) => e.kind === 'node.turn')
    .map((e) => e.payload.turn as { index: number; started_at: string; finished_at: string });
  const bashMs = new Map<number, number>();
  const reported = new Set<number>();
  for (const e of events) {
    const call = e.payload.tool_call as
      | { name: string; output: { duration_ms?: number } }
      | undefined;
    if (e.kind !== 'node.tool' || call === undefined) continue;
    const index = e.payload.turn_index as number;
    if (call.name === 'bash') bashMs.set(index, call.output.duration_ms ?? 0);
    else if (call.name === 'report') reported.add(index);
  }
  const gaps: { after: TurnKind; ms: number }[] = [];
  for (let i = 1; i < turns.length; i++) {
    const prev = turns[i - 1]!;
    const gap = Date.parse(turns[i]!.started_at) - Date.parse(prev.finished_at);
    const bash = bashMs.get(prev.index);
    const after = bash !== undefined ? 'bash' : reported.has(prev.index) ? 'report' : 'other';
    gaps.push({ after, ms: gap - (bash ?? 0) });
  }
  return gaps;
}

/** The seq of the daemon's last recorded event (0 with none), read from its database. */
export function lastSeq(db: string): number {
  const sqlite = new DatabaseSync(db, { readOnly: true });
  try {
    const row = sqlite.prepare('SELECT max(seq) AS seq FROM events').get() as {
      seq: number | null;
    };
    return row.seq ?? 0;
  } finally {
    sqlite.close();
  }
}

/** Broker start times from the daemon's record, in launch order: launched → claim answered. */
export function brokerStarts(db: string): number[] {
  const sqlite = new DatabaseSync(db, { readOnly: true });
  const rows = sqlite
    .prepare(
      'SELECT started_at, claimed_at FROM brokers WHERE claimed_at IS NOT NULL ORDER BY started_at',
    )
    .all() as { started_at: string; claimed_at: string }[];
  sqlite.close();
  return rows.map((r) => Date.parse(r.claimed_at) - Date.parse(r.started_at));
}
