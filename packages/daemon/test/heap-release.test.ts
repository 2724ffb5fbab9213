import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HEAP_RELEASE_QUIET_MS, heapRelease } from '../src/lifecycle/heap-release.ts';

const QUIET = HEAP_RELEASE_QUIET_MS;

describe('heapRelease: memory back to the system after a quiet spell', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('releases once a spell without work has lasted, then not again while nothing happens', () => {
    const collect = vi.fn();
    const release = heapRelease({ collect });
    release.touch();
    vi.advanceTimersByTime(QUIET - 1);
    expect(collect).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(collect).toHaveBeenCalledTimes(1);
    // No timer is left: an idle daemon is not woken again.
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(100 * QUIET);
    expect(collect).toHaveBeenCalledTimes(1);
    release.touch();
    vi.advanceTimersByTime(QUIET);
    expect(collect).toHaveBeenCalledTimes(2);
  });

  it('waits while work keeps coming: each touch starts the spell again', () => {
    const collect = vi.fn();
    const release = heapRelease({ collect });
    for (let i = 0; i < 20; i++) {
      release.touch();
      vi.advanceTimersByTime(QUIET / 2);
    }
    expect(collect).not.toHaveBeenCalled();
    // One timer however many touches: a request costs a clock read, not a timer.
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(QUIET / 2);
    expect(collect).toHaveBeenCalledTimes(1);
  });

  it('reports how long each release took', () => {
    const took: number[] = [];
    const release = heapRelease({
      quietMs: 10,
      collect: () => vi.advanceTimersByTime(0),
      onRelease: (ms) => took.push(ms),
    });
    release.touch();
    vi.advanceTimersByTime(10);
    expect(took).toHaveLength(1);
    expect(took[0]).toBeGreaterThanOrEqual(0);
  });

  it('does nothing once closed', () => {
    const collect = vi.fn();
    const release = heapRelease({ collect });
    release.touch();
    release.close();
    release.touch();
    vi.advanceTimersByTime(10 * QUIET);
    expect(collect).not.toHaveBeenCalled();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('refuses a quiet spell that is no positive number, naming it', () => {
    for (const quietMs of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => heapRelease({ quietMs })).toThrow(/quietMs must be a positive number/);
    }
  });
});

describe('the default release, in a real Node process', () => {
  it('gives back the pages a burst of garbage left resident, which V8 alone keeps', async () => {
    const module = fileURLToPath(new URL('../src/lifecycle/heap-release.ts', import.meta.url));
    // A burst like a thousand launches: short-lived objects, some kept a while. Then a quiet
    // spell of 1 ms, and the resident memory before and after the release it ends with.
    const script = `
      import { heapRelease } from ${JSON.stringify(module)};
      const rss = () => process.memoryUsage.rss() / 1048576;
      const base = rss();
      let keep = [];
      for (let i = 0; i < 3e6; i++) {
        const o = { a: i, b: 'x'.repeat(20) + i, c: [i, i + 1] };
        if (i % 10 === 0) keep.push(o);
        if (keep.length > 50000) keep = [];
      }
      keep = [];
      const burst = rss();
      // The release's timer does not hold the process open (a daemon's would not): this does.
      const hold = setInterval(() => {}, 60_000);
      await new Promise((resolve) => heapRelease({ quietMs: 1, onRelease: resolve }).touch());
      clearInterval(hold);
      console.log(JSON.stringify({ base, burst, released: rss() }));
    `;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--input-type=module', '-e', script],
      { timeout: 60_000 },
    );
    const { base, burst, released } = JSON.parse(stdout) as {
      base: number;
      burst: number;
      released: number;
    };
    const grown = burst - base;
    // The burst grew the process; V8's own collections leave that resident (the reason for the
    // release), and the release gives back at least most of it.
    expect(grown).toBeGreaterThan(40);
    expect(burst - released).toBeGreaterThan(grown * 0.6);
  }, 90_000);
});
