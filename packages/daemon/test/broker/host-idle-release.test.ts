import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HOST_RELEASE_QUIET_MS, hostIdleRelease } from '../../src/broker/host-idle-release.ts';

const QUIET = HOST_RELEASE_QUIET_MS;

describe('hostIdleRelease: a host with no node gives back its heap after a quiet spell', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('releases once the host has had no node for the spell, then not again while idle', () => {
    const collect = vi.fn();
    const onRelease = vi.fn();
    const release = hostIdleRelease({ busy: () => false, collect, onRelease });
    release.idle();
    vi.advanceTimersByTime(QUIET - 1);
    expect(collect).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(collect).toHaveBeenCalledTimes(1);
    expect(onRelease).toHaveBeenCalledTimes(1);
    // An idle host is not woken again.
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(100 * QUIET);
    expect(collect).toHaveBeenCalledTimes(1);
  });

  it('never collects while a node runs on the host: one launched during the spell skips it', () => {
    const collect = vi.fn();
    const onRelease = vi.fn();
    let nodes = 0;
    const release = hostIdleRelease({ busy: () => nodes > 0, collect, onRelease });
    release.idle();
    nodes = 1; // a launch before the spell is over
    vi.advanceTimersByTime(10 * QUIET);
    expect(collect).not.toHaveBeenCalled();
    expect(onRelease).not.toHaveBeenCalled();
    // That node's end starts the next spell.
    nodes = 0;
    release.idle();
    vi.advanceTimersByTime(QUIET);
    expect(collect).toHaveBeenCalledTimes(1);
  });

  it('a host that closes releases nothing more', () => {
    const collect = vi.fn();
    const release = hostIdleRelease({ busy: () => false, collect });
    release.idle();
    release.close();
    vi.advanceTimersByTime(10 * QUIET);
    expect(collect).not.toHaveBeenCalled();
    expect(vi.getTimerCount()).toBe(0);
  });
});
