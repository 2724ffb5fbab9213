/**
 * Group commit under `kill -9`: a real daemon process takes writes from several clients at once
 * (so commits share flushes), and is killed at an arbitrary point with writes in flight. Every
 * write it answered must be in the database it leaves, and the next daemon starts on it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { eventually } from './broker-fixtures.ts';
import { DAEMON_MAIN, daemonProcesses, json, socketFetch } from './helpers.ts';

const { newHome, pids } = daemonProcesses();

const ROUNDS = 3;
const CLIENTS = 8;

/** A daemon process on `home`, answering on its socket as this very process. */
async function start(home: string) {
  const child = spawn(
    process.execPath,
    ['--disable-warning=ExperimentalWarning', DAEMON_MAIN, '--home', home, '--brokers', '1'],
    { stdio: 'ignore' },
  );
  pids.push(child.pid!);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const sock = join(home, 'daemon.sock');
  const token = join(home, 'owner.token');
  let call: ReturnType<typeof socketFetch> | null = null;
  await eventually(async () => {
    if (!existsSync(sock) || !existsSync(token)) return false;
    call ??= socketFetch(sock, readFileSync(token, 'utf8').trim());
    const status = await call('/v1/status').catch(() => null);
    return status?.status === 200 && ((await status.json()) as { pid: number }).pid === child.pid;
  }, 20_000);
  return { child: child as ChildProcess, call: call!, exited };
}

describe('acknowledged writes across kill -9 (group commit)', () => {
  it('every write the daemon answered is in the database it leaves', async () => {
    const home = newHome();
    const acknowledged: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const { child, call, exited } = await start(home);
      // Killed after an arbitrary number of answers, with every client's next write in flight.
      const killAt = acknowledged.length + 5 + Math.floor(Math.random() * 60);
      let killed = false;
      const client = async (n: number) => {
        for (let i = 0; !killed && i < 1_000; i++) {
          const res = await call(
            '/v1/connect',
            json({ app_id: `app-${round}-${n}-${i}`, scopes: [] }),
          ).catch(() => null);
          if (res === null || res.status !== 200) return; // the daemon is gone
          acknowledged.push(((await res.json()) as { token_id: string }).token_id);
          if (!killed && acknowledged.length >= killAt) {
            killed = true;
            child.kill('SIGKILL');
          }
        }
      };
      await Promise.all(Array.from({ length: CLIENTS }, (_, n) => client(n)));
      await exited;
      expect(killed).toBe(true);

      const db = new DatabaseSync(join(home, 'svc.db'), { readOnly: true });
      const stored = new Set(
        (db.prepare('SELECT id FROM tokens').all() as { id: string }[]).map((row) => row.id),
      );
      db.close();
      expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);
    }
    expect(acknowledged.length).toBeGreaterThanOrEqual(ROUNDS * 5);
  }, 120_000);
});
