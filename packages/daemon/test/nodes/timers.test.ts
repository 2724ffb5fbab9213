/**
 * Node timers as a due-time source over the store (`nodeTimers`): what a clock reads and runs.
 * Real SQLite; the timer waits are made through the same operations the routes run.
 */

import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startDaemon } from '../../src/daemon.ts';
import { eventLog } from '../../src/events/log.ts';
import { nodeService } from '../../src/nodes/service.ts';
import type { Principal } from '../../src/ports.ts';
import { openStore, type Store } from '../../src/store/index.ts';
import { socketFetch, tempHome } from '../helpers.ts';
import { ONE_IDLE_SLOT } from '../nodes-fixture.ts';

const OWNER: Principal = {
  tokenId: 'tok_owner',
  kind: 'owner',
  appId: null,
  nodeId: null,
  scopes: null,
  expiresAt: null,
};

const homes: string[] = [];
const stores: Store[] = [];

afterEach(() => {
  for (const store of stores.splice(0)) store.db.close();
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

/** A nodes service over the database at `path` (a second call: the daemon after a restart). */
function open(path: string) {
  const store = openStore(path);
  stores.push(store);
  const nodes = nodeService({
    store,
    events: eventLog(store),
    profiles: { settings: () => ({}) as never },
    models: {
      config: () => ({ default: null, profiles: {}, updated_at: '' }) as never,
      requireReady: () => {},
    },
  });
  return { store, nodes };
}

function freshDb(): string {
  const home = tempHome('svc-timers-');
  homes.push(home);
  return join(home, 'svc.db');
}

describe('nodeTimers', () => {
  it('answers the soonest timer of a waiting node, and tells its listeners when one is set', async () => {
    const { store, nodes } = open(freshDb());
    expect(nodes.timers.soonest()).toBeNull();
    let told = 0;
    const unsubscribe = nodes.timers.onChange(() => told++);
    const late = startWaiting({ store, nodes }, 7200);
    const soon = startWaiting({ store, nodes }, 3600);
    expect(told).toBe(0); // once the commits are durable (group commit)
    await store.db.durable();
    expect(told).toBe(2);
    expect(nodes.timers.soonest()).toBe(soon.until);
    expect(late.until > soon.until).toBe(true);
    unsubscribe();
    startWaiting({ store, nodes }, 60);
    await store.db.durable();
    expect(told).toBe(2);
  });

  it('wakes every node whose timer is due, each once; one not yet due waits on', () => {
    const { store, nodes } = open(freshDb());
    const due = startWaiting({ store, nodes }, 0);
    const later = startWaiting({ store, nodes }, 3600);
    expect(nodes.timers.tick(true)).toBe(false);
    expect(store.nodes.get(due.id)?.state).toBe('queued');
    expect(store.nodes.get(later.id)?.state).toBe('waiting');
    expect(nodes.timers.soonest()).toBe(later.until);
    const wakes = () =>
      store.events
        .list({ after: 0, limit: 1000, kinds: ['node.state'] })
        .filter((e) => e.subject === due.id);
    const before = wakes().length;
    expect(nodes.timers.tick(false)).toBe(false);
    expect(wakes().length).toBe(before);
  });

  it('leaves a node alone that mail woke before its timer', () => {
    const { store, nodes } = open(freshDb());
    const node = startWaiting({ store, nodes }, 0);
    nodes.deliver(store.nodes.get(node.id)!, { kind: 'owner', id: null }, 'wake up');
    expect(store.nodes.get(node.id)?.state).toBe('queued');
    expect(nodes.timers.soonest()).toBeNull();
    expect(nodes.timers.tick(false)).toBe(false);
    expect(store.nodes.get(node.id)?.state).toBe('queued');
  });

  it('survives a restart: the timer is read from the row, and fires once', () => {
    const path = freshDb();
    const first = open(path);
    const node = startWaiting(first, 0);
    first.store.db.close();
    stores.splice(stores.indexOf(first.store), 1);
    const { store, nodes } = open(path);
    expect(nodes.timers.soonest()).toBe(node.until);
    expect(nodes.timers.tick(true)).toBe(false);
    expect(store.nodes.get(node.id)?.state).toBe('queued');
    expect(nodes.timers.soonest()).toBeNull();
  });
});

describe('node timers across a daemon restart', () => {
  it('a timer that came due while the daemon was down wakes its node at the start, once', async () => {
    const home = tempHome('svc-timers-');
    homes.push(home);
    // While no daemon runs: a node set waiting on a timer that is due by the next start.
    const down = open(join(home, 'svc.db'));
    const node = startWaiting(down, 0);
    down.store.db.close();
    stores.splice(stores.indexOf(down.store), 1);

    const wakes = async () => {
      const daemon = await startDaemon({ home, logLevel: 'warn', brokers: ONE_IDLE_SLOT });
      try {
        const owner = readFileSync(join(home, 'owner.token'), 'utf8').trim();
        const call = socketFetch(daemon.socketPath, owner);
        const state = ((await (await call(`/v1/nodes/${node.id}`)).json()) as { state: string })
          .state;
        const page = (await (
          await call(`/v1/nodes/${node.id}/events?kinds=node.state&limit=100`)
        ).json()) as { data: { payload: { action: string } }[] };
        return { state, woken: page.data.filter((e) => e.payload.action === 'wake').length };
      } finally {
        await daemon.close();
      }
    };
    // The start's first tick wakes it before the daemon answers anything.
    expect(await wakes()).toEqual({ state: 'queued', woken: 1 });
    // Not waiting any more: another start wakes nothing.
    expect((await wakes()).woken).toBe(1);
  });
});

/** A node made, started and set waiting `seconds` on a timer; its id and `until`. */
function startWaiting({ store, nodes }: ReturnType<typeof open>, seconds: number) {
  const id = store.db.transaction((afterCommit) =>
    nodes.insertNode(
      { task: 'sleep', model: { provider: 'scripted', model: 'replay', script: [] } } as never,
      OWNER,
      afterCommit,
    ),
  ).id;
  nodes.act(id, 'start');
  const node = nodes.wait(id, { for: 'timer', seconds });
  const until = node.waiting_on?.for === 'timer' ? node.waiting_on.until : '';
  return { id, until };
}
