/** The bare baselines of `nodes.ts`, measured in the same run as what they are set beside. */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { DatabaseSync } from 'node:sqlite';
import { type Mem, memOf } from './nodes-rss.ts';

/** `count` spawns of `node -e ''`, `parallel` at a time: each one's time to exit, and the wall time. */
export async function timedSpawns(
  count: number,
  parallel: number,
): Promise<{ each: number[]; wallMs: number }> {
  const each: number[] = [];
  let next = 0;
  const t0 = performance.now();
  const worker = async () => {
    while (next < count) {
      next++;
      const t = performance.now();
      await new Promise((resolve) => spawn(process.execPath, ['-e', '']).once('exit', resolve));
      each.push(performance.now() - t);
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return { each, wallMs: performance.now() - t0 };
}

/** `rounds` durable inserts, each followed by a notify of `listeners` in-process callbacks. */
export function insertAndNotify(file: string, listeners: number, rounds: number) {
  const sqlite = new DatabaseSync(file);
  sqlite.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;');
  sqlite.exec('CREATE TABLE events (seq INTEGER PRIMARY KEY AUTOINCREMENT, payload TEXT NOT NULL)');
  const insert = sqlite.prepare('INSERT INTO events (payload) VALUES (?)');
  const step: number[] = [];
  const lag: number[] = [];
  let t = 0;
  const subscribers = Array.from(
    { length: listeners },
    () => () => lag.push(performance.now() - t),
  );
  for (let i = 0; i < rounds; i++) {
    t = performance.now();
    insert.run(JSON.stringify({ i }));
    for (const s of subscribers) s();
    step.push(performance.now() - t);
  }
  sqlite.close();
  return { step, lag };
}

/**
 * The resident memory (RSS and PSS, kB, summed) of `count` bare processes started together and
 * waiting: Node processes that have started (`node`), or `sleep` commands (`sleep`). Each kind
 * is what the least a process of its own costs, set beside a host and a command.
 */
export async function bareMem(count: number, kind: 'node' | 'sleep'): Promise<Mem> {
  const children = Array.from({ length: count }, () =>
    kind === 'node'
      ? spawn(process.execPath, ['-e', "console.log('up'); setInterval(() => {}, 1e6)"], {
          stdio: ['ignore', 'pipe', 'ignore'],
        })
      : spawn('sleep', ['300'], { stdio: 'ignore' }),
  );
  try {
    await Promise.all(
      children.map((child) =>
        kind === 'node'
          ? once(createInterface({ input: child.stdout! }), 'line')
          : once(child, 'spawn'),
      ),
    );
    const total: Mem = { rssKb: 0, pssKb: 0 };
    for (const child of children) {
      const mem = memOf(child.pid!);
      total.rssKb += mem.rssKb;
      total.pssKb += Math.max(0, mem.pssKb);
    }
    return total;
  } finally {
    for (const child of children) child.kill('SIGKILL');
    await Promise.all(
      children.map((c) => (c.exitCode === null && c.signalCode === null ? once(c, 'exit') : null)),
    );
  }
}
