/**
 * A node waiting on a timer when the daemon stopped: the next daemon re-arms its timer when it
 * starts, so once its time has come it wakes (`waiting` → `queued`) without anyone touching it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { eventLog } from '../src/events/log.ts';
import { type DaemonHandle, startDaemon } from '../src/index.ts';
import { nodeService } from '../src/nodes/service.ts';
import { openStore } from '../src/store/index.ts';
import { json, scratchDirs, socketFetch } from './helpers.ts';
import { IDLE_BROKER, SCRIPTED } from './nodes-fixture.ts';
import { readFrames } from './sse.ts';

const home = scratchDirs('svcd-timer-')();
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

/** What a broker does to its node, done on the database between daemons. */
function brokerWaits(nodeId: string, until: string): number {
  const store = openStore(join(home, 'svc.db'));
  const events = eventLog(store);
  const side = nodeService({
    store,
    events,
    profiles: { settings: () => ({}) as never },
    models: {
      config: () => ({ default: null, profiles: {}, updated_at: '' }) as never,
      requireReady: () => {},
    },
  });
  try {
    side.act(nodeId, 'start', {});
    side.act(nodeId, 'wait', { reason: 'a nap', waitingOn: { for: 'timer', until } });
    return events.lastSeq();
  } finally {
    store.db.close();
  }
}

it('wakes, at the next start, a node whose timer ran out while the daemon was down', async () => {
  let call = await start();
  const create = async (task: string) => {
    const res = await call('/v1/nodes', json({ model: SCRIPTED, task }));
    expect(res.status).toBe(200);
    return ((await res.json()) as { id: string }).id;
  };
  await create('holds the only broker slot');
  const sleeper = await create('sleeps through the restart');
  await stop();

  const after = brokerWaits(sleeper, new Date(Date.now() - 1_000).toISOString());
  call = await start();
  const res = await call(`/v1/events?kinds=node.state&after=${after}`);
  const woke = (frames: { data?: string }[]) =>
    frames.some((f) => {
      const event = JSON.parse(f.data ?? '{}') as {
        subject_id?: string;
        payload?: { to?: string };
      };
      return event.subject_id === sleeper && event.payload?.to === 'queued';
    });
  const { frames } = await readFrames(res, woke, 15_000);
  expect(woke(frames)).toBe(true);
});
