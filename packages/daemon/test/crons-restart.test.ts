/**
 * Fires missed while the daemon was down: one daemon creates the crons and stops, their next
 * times are moved into the past in the database (the time it was down), and the next daemon on
 * the same home applies each cron's `missed` policy once, and only once across further restarts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DaemonHandle, startDaemon } from '../src/index.ts';
import { openStore } from '../src/store/index.ts';
import { json, scratchDirs, socketFetch } from './helpers.ts';
import { IDLE_BROKER, SCRIPTED } from './nodes-fixture.ts';

const home = scratchDirs('svcd-cron-')();
let daemon: DaemonHandle | undefined;

const start = async () => {
  daemon = await startDaemon({
    home,
    logLevel: 'warn',
    brokers: { concurrency: 1, entry: IDLE_BROKER },
  });
  const token = readFileSync(join(home, 'owner.token'), 'utf8').trim();
  return socketFetch(daemon.socketPath, token);
};
const stop = async () => {
  await daemon?.close();
  daemon = undefined;
};
afterAll(stop);

/** Reads the database between daemons (no daemon holds it then). */
const withDb = <T>(fn: (store: ReturnType<typeof openStore>) => T): T => {
  const store = openStore(join(home, 'svc.db'));
  try {
    return fn(store);
  } finally {
    store.db.close();
  }
};

const events = (kind: string, cronId: string) =>
  withDb((s) =>
    s.events
      .list({ after: 0, limit: 10_000, kinds: [kind] })
      .filter((e) => e.subject === cronId)
      .map((e) => JSON.parse(e.payload)),
  );

const cronRow = (id: string) => withDb((s) => s.crons.get(id)!);

let skip: { id: string; next_run_at: string };
let once: { id: string; next_run_at: string };
const missedAt = '2020-01-01T00:00:00.000Z';

beforeAll(async () => {
  const call = await start();
  const create = async (missed: string) => {
    const res = await call(
      '/v1/crons',
      json({ schedule: '0 0 1 1 *', missed, task: { task: `missed ${missed}`, model: SCRIPTED } }),
    );
    return (await res.json()) as { id: string; next_run_at: string };
  };
  skip = await create('skip');
  once = await create('run_once');
  await stop();
  withDb((s) => s.db.sqlite.prepare('UPDATE crons SET next_run_at = ?').run(missedAt));
});

describe('a time passed while the daemon was down', () => {
  it('skip: no fire at the next start; run_once: exactly one, for the missed time', async () => {
    await start();
    await stop();
    expect(events('cron.fired', skip.id)).toEqual([]);
    expect(events('cron.skipped', skip.id)).toMatchObject([{ missed_from: missedAt }]);
    expect(cronRow(skip.id)).toMatchObject({ fire_count: 0, next_run_at: skip.next_run_at });

    const fired = events('cron.fired', once.id);
    expect(fired).toMatchObject([{ scheduled_at: missedAt, trigger: 'missed', error: null }]);
    const row = cronRow(once.id);
    expect(row).toMatchObject({
      fire_count: 1,
      last_run_at: missedAt,
      last_node_id: fired[0].node_id,
      next_run_at: once.next_run_at,
    });
    const node = withDb((s) => s.nodes.get(fired[0].node_id));
    expect(node).toMatchObject({ task: 'missed run_once', parent_id: null });
  });

  it('a further restart fires nothing more', async () => {
    await start();
    await stop();
    expect(events('cron.fired', once.id)).toHaveLength(1);
    expect(events('cron.fired', skip.id)).toHaveLength(0);
    expect(cronRow(once.id).fire_count).toBe(1);
  });
});
