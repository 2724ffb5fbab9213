/**
 * The bench daemon of `nodes.ts` (`nodes-daemon.ts`, a process of its own) and how the bench
 * talks to it: calls with the owner token, `/v1/events` watchers, and what it reads back (turn
 * gaps, broker starts).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { DatabaseSync } from 'node:sqlite';
import { Agent, fetch, type Response } from 'undici';

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
  /** The CPU time (user and system) the daemon process has used so far, in ms. */
  cpuMs(): Promise<number>;
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
    { stdio: ['pipe', 'pipe', 'inherit'] },
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
    async cpuMs() {
      const answer = nextLine();
      child.stdin!.write('cpu\n');
      return (JSON.parse(await answer) as { cpuMs: number }).cpuMs;
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

/** One SSE watcher of `/v1/events`; `onEvent` gets each event and when it arrived. */
export function watch(
  daemon: BenchDaemon,
  home: string,
  onEvent: (e: EventDto, at: number) => void,
): { ready: Promise<unknown>; close(): void } {
  const token = readFileSync(join(home, 'owner.token'), 'utf8').trim();
  const controller = new AbortController();
  const dispatcher = new Agent({ connect: { socketPath: daemon.socketPath } });
  const ready = (async () => {
    const res = await fetch('http://localhost/v1/events', {
      headers: { authorization: `Bearer ${token}` },
      signal: controller.signal,
      dispatcher,
    });
    if (!res.ok || res.body === null) throw new Error(`GET /v1/events answered ${res.status}`);
    return res.body;
  })();
  void ready.then(async (body) => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of body) {
        const at = Date.now();
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        let cut = buffer.indexOf('\n\n');
        while (cut !== -1) {
          const data = buffer
            .slice(0, cut)
            .split('\n')
            .find((l) => l.startsWith('data: '));
          if (data !== undefined) onEvent(JSON.parse(data.slice(6)) as EventDto, at);
          buffer = buffer.slice(cut + 2);
          cut = buffer.indexOf('\n\n');
        }
      }
    } catch {
      // Closed by the bench.
    }
  });
  return {
    ready,
    close: () => {
      controller.abort();
      void dispatcher.close();
    },
  };
}

/**
 * Per node: each turn's end to the next turn's start, minus the bash command's own duration
 * (what the daemon and broker cost between two model turns).
 */
export function turnOverheads(events: EventDto[]): number[] {
  const turns = events
    .filter((e) => e.kind === 'node.turn')
    .map((e) => e.payload.turn as { index: number; started_at: string; finished_at: string });
  const bashMs = new Map<number, number>();
  for (const e of events) {
    const call = e.payload.tool_call as
      | { name: string; output: { duration_ms?: number } }
      | undefined;
    if (e.kind === 'node.tool' && call?.name === 'bash') {
      bashMs.set(e.payload.turn_index as number, call.output.duration_ms ?? 0);
    }
  }
  const gaps: number[] = [];
  for (let i = 1; i < turns.length; i++) {
    const prev = turns[i - 1]!;
    const gap = Date.parse(turns[i]!.started_at) - Date.parse(prev.finished_at);
    gaps.push(gap - (bashMs.get(prev.index) ?? 0));
  }
  return gaps;
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
