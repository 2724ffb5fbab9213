/**
 * The WAL's flush (src/store/wal-flush.ts): on the event loop while syncs are fast, off it while
 * they are slow, tried on it again now and then; a failed sync rejects, whichever way it went.
 * A clock the test moves stands in for the disk's speed; the real sync is `fdatasyncSync`.
 */
import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { adaptiveFlush, type Flush } from '../src/store/wal-flush.ts';
import { tempHome } from './helpers.ts';

/** A flush whose syncs take `ms()` on its clock, counted by where they ran. */
function disk(ms: () => number, opts: { probeEvery?: number } = {}) {
  const state = { fail: false };
  let clock = 0;
  const ran = { onLoop: 0, offLoop: 0 };
  const offLoop: Flush = async () => {
    ran.offLoop += 1;
    if (state.fail) throw new Error('EIO');
  };
  const flush = adaptiveFlush({
    slowMs: 4,
    probeEvery: opts.probeEvery ?? 10,
    now: () => clock,
    sync: () => {
      ran.onLoop += 1;
      clock += ms();
      if (state.fail) throw new Error('EIO');
    },
    offLoop,
  });
  return { flush, ran, state };
}

describe('adaptiveFlush', () => {
  it('syncs on the loop while syncs are fast, runs of slow ones included (a preempted loop)', async () => {
    let n = 0;
    const { flush, ran } = disk(() => (++n % 10 >= 7 ? 12 : 0.5));
    for (let i = 0; i < 50; i++) await flush(3);
    expect(ran).toEqual({ onLoop: 50, offLoop: 0 });
  });

  it('goes off the loop once syncs are slow, and tries the loop again every probeEvery flushes', async () => {
    const { flush, ran } = disk(() => 10, { probeEvery: 10 });
    await flush(3); // the first sync, on the loop, finds the disk slow
    expect(ran).toEqual({ onLoop: 1, offLoop: 0 });
    for (let i = 0; i < 30; i++) await flush(3);
    // 9 off the loop, then a probe on it, three times over.
    expect(ran).toEqual({ onLoop: 4, offLoop: 27 });
  });

  it('goes off the loop at once after one sync that stalls, and back once the disk is fast', async () => {
    let n = 0;
    const { flush, ran } = disk(() => (++n === 5 ? 500 : 0.5), { probeEvery: 10 });
    for (let i = 0; i < 5; i++) await flush(3); // the fifth stalls
    for (let i = 0; i < 9; i++) await flush(3);
    expect(ran).toEqual({ onLoop: 5, offLoop: 9 });
    await flush(3); // the probe: fast, and the median of the last ones is fast
    for (let i = 0; i < 5; i++) await flush(3);
    expect(ran).toEqual({ onLoop: 11, offLoop: 9 });
  });

  it('comes back to the loop once its probes find the disk fast again', async () => {
    let speed = 10;
    const { flush, ran } = disk(() => speed, { probeEvery: 2 });
    for (let i = 0; i < 5; i++) await flush(3);
    speed = 0.2;
    for (let i = 0; i < 40; i++) await flush(3);
    const before = { ...ran };
    for (let i = 0; i < 10; i++) await flush(3);
    expect(ran.onLoop - before.onLoop).toBe(10);
    expect(ran.offLoop).toBe(before.offLoop);
  });

  it('rejects when the sync fails, on the loop or off it', async () => {
    const onLoop = disk(() => 0.5);
    onLoop.state.fail = true;
    await expect(onLoop.flush(3)).rejects.toThrow('EIO');
    const slow = disk(() => 10, { probeEvery: 100 });
    await slow.flush(3); // on the loop: the disk is slow
    slow.state.fail = true;
    await expect(slow.flush(3)).rejects.toThrow('EIO'); // off the loop
    expect(slow.ran).toEqual({ onLoop: 1, offLoop: 1 });
  });

  it('syncs a real file by default', async () => {
    const home = tempHome();
    const fd = openSync(`${home}/wal`, 'w');
    try {
      writeSync(fd, 'frame');
      await expect(adaptiveFlush()(fd)).resolves.toBeUndefined();
      // A descriptor nothing holds cannot be synced: the error is the flush's, not a throw. (Not
      // the one just closed: another open in this process may be given its number meanwhile.)
      await expect(adaptiveFlush()(2 ** 30)).rejects.toThrow(/EBADF/);
    } finally {
      closeSync(fd);
      rmSync(home, { recursive: true, force: true });
    }
  });
});
