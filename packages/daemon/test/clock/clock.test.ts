/**
 * The one clock on its own: fake works with real timers. Each test waits on a tick it expects
 * (a promise the work resolves), never on a sleep.
 */
import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  type Clock,
  createClock,
  type DueWork,
  MAX_SLEEP_MS,
  RETRY_MS,
} from '../../src/clock/clock.ts';

/** A work whose due time the test sets, recording its ticks and resolving waiters on each. */
function fakeWork(opts: { due?: string | null; fails?: (n: number) => boolean | 'throw' } = {}) {
  let due = opts.due ?? null;
  const listeners = new Set<() => void>();
  const ticks: { first: boolean; at: number }[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const work: DueWork = {
    soonest: () => due,
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    tick(first) {
      ticks.push({ first, at: performance.now() });
      for (const w of waiters.filter((w) => ticks.length >= w.count)) w.resolve();
      const failed = opts.fails?.(ticks.length) ?? false;
      if (failed === 'throw') throw new Error(`tick ${ticks.length} broke`);
      // Done: nothing more is due unless the test says so (a failed tick leaves it due).
      if (!failed) due = null;
      return failed;
    },
  };
  return {
    work,
    ticks,
    listeners,
    /** Sets the due time and tells the clock, as a commit would. */
    change(at: string | null) {
      due = at;
      for (const listener of [...listeners]) listener();
    },
    /** Settles once the work has been ticked `count` times in all. */
    ticked(count: number): Promise<void> {
      if (ticks.length >= count) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ count, resolve }));
    },
  };
}

const now = () => new Date().toISOString();
const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();

let clocks: Clock[] = [];
function clock(...args: Parameters<typeof createClock>): Clock {
  const made = createClock(...args);
  clocks.push(made);
  return made;
}
afterEach(() => {
  for (const made of clocks) made.close();
  clocks = [];
  vi.restoreAllMocks();
});

describe('the clock', () => {
  it('ticks every work once at start, first, in the order added', () => {
    const order: string[] = [];
    const c = clock();
    for (const name of ['crons', 'human', 'objects']) {
      const w = fakeWork();
      c.add(name, {
        ...w.work,
        tick: (first) => {
          order.push(`${name}:${first}`);
          return w.work.tick(first);
        },
      });
    }
    expect(order).toEqual([]);
    c.start();
    expect(order).toEqual(['crons:true', 'human:true', 'objects:true']);
  });

  it('ticks a work when its due time comes, and only that work', async () => {
    const soon = fakeWork({ fails: (n) => n === 1 });
    const later = fakeWork({ due: inAnHour() });
    const c = clock();
    c.add('soon', soon.work);
    c.add('later', later.work);
    c.start();
    soon.change(now());
    await soon.ticked(2);
    expect(soon.ticks.map((t) => t.first)).toEqual([true, false]);
    expect(later.ticks.map((t) => t.first)).toEqual([true]);
  });

  it('re-arms on a change: a work with nothing due ticks once something is due now', async () => {
    const w = fakeWork();
    const c = clock();
    c.add('w', w.work);
    c.start();
    expect(w.ticks).toHaveLength(1);
    w.change(now());
    await w.ticked(2);
    expect(w.ticks[1]?.first).toBe(false);
  });

  it('after a failed tick that work waits RETRY_MS before the next', async () => {
    // The first two ticks fail and leave the work due now; the third succeeds.
    const w = fakeWork({ due: now(), fails: (n) => n <= 2 });
    const other = fakeWork();
    const c = clock();
    c.add('failing', w.work);
    c.add('other', other.work);
    c.start();
    // Another work's change meanwhile does not hurry the failing one.
    other.change(now());
    await other.ticked(2);
    expect(w.ticks).toHaveLength(1);
    await w.ticked(3);
    const [a, b, d] = w.ticks;
    expect(b!.at - a!.at).toBeGreaterThanOrEqual(RETRY_MS);
    expect(d!.at - b!.at).toBeGreaterThanOrEqual(RETRY_MS);
  });

  it('a tick that throws counts as failed: reported with its work name, retried', async () => {
    const reported: { name: string; error: unknown }[] = [];
    const w = fakeWork({ due: now(), fails: (n) => (n === 1 ? 'throw' : false) });
    const c = clock({ onError: (name, error) => reported.push({ name, error }) });
    c.add('broken', w.work);
    c.start();
    expect(reported).toHaveLength(1);
    expect(reported[0]?.name).toBe('broken');
    expect(String(reported[0]?.error)).toContain('tick 1 broke');
    await w.ticked(2);
    expect(w.ticks[1]!.at - w.ticks[0]!.at).toBeGreaterThanOrEqual(RETRY_MS);
  });

  it('sleeps at most MAX_SLEEP_MS however far the soonest time is, on an unref’d timer', () => {
    const armed: { delay: number | undefined; timer: NodeJS.Timeout }[] = [];
    const real = globalThis.setTimeout;
    vi.spyOn(globalThis, 'setTimeout').mockImplementation(((fn: () => void, delay?: number) => {
      const timer = real(fn, delay);
      armed.push({ delay, timer });
      return timer;
    }) as typeof setTimeout);
    const w = fakeWork({ due: new Date(Date.now() + 365 * 86_400_000).toISOString() });
    w.work.tick = () => false; // stays due in a year
    const c = clock();
    c.add('yearly', w.work);
    c.start();
    expect(armed).toHaveLength(1);
    expect(armed[0]!.delay).toBeLessThanOrEqual(MAX_SLEEP_MS);
    expect(armed[0]!.delay).toBeGreaterThan(MAX_SLEEP_MS - 1_000);
    expect(armed[0]!.timer.hasRef()).toBe(false);
  });

  it('a wall clock set back after arming does not postpone the tick (wakes are monotonic)', async () => {
    const due = new Date(Date.now() + 100).toISOString();
    const w = fakeWork({ due });
    w.work.tick = (first) => {
      w.ticks.push({ first, at: performance.now() });
      if (!first) done();
      return false; // stays due at the same time
    };
    let done = () => {};
    const ticked = new Promise<void>((resolve) => {
      done = resolve;
    });
    const c = clock();
    c.add('w', w.work);
    c.start();
    // An hour back, as NTP or a restored VM might: the time armed for still comes on time.
    const real = Date.now;
    vi.spyOn(Date, 'now').mockImplementation(() => real() - 3_600_000);
    await ticked;
    expect(w.ticks.map((t) => t.first)).toEqual([true, false]);
  });

  it('arms nothing when nothing is due ever', () => {
    const spy = vi.spyOn(globalThis, 'setTimeout');
    const c = clock();
    c.add('idle', fakeWork().work);
    c.start();
    expect(spy).not.toHaveBeenCalled();
  });

  it('a work added after start starts at once; a name is taken once', () => {
    const c = clock();
    c.start();
    const w = fakeWork();
    c.add('late', w.work);
    expect(w.ticks.map((t) => t.first)).toEqual([true]);
    expect(() => c.add('late', fakeWork().work)).toThrow(/late/);
  });

  it('close stops everything: no tick after it, every subscription ended', async () => {
    const w = fakeWork({ due: now(), fails: () => false });
    w.work.tick = (first) => {
      w.ticks.push({ first, at: performance.now() });
      return false; // stays due now: the clock would tick it on its next turn
    };
    const c = clock();
    c.add('w', w.work);
    c.start();
    expect(w.listeners.size).toBe(1);
    c.close();
    expect(w.listeners.size).toBe(0);
    // A timer armed after the clock's would fire after it: had the clock's survived, it ticked.
    await new Promise((resolve) => setTimeout(resolve, 20));
    w.change(now());
    c.start();
    expect(w.ticks).toHaveLength(1);
  });
});
