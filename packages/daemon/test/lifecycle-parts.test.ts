import { describe, expect, it } from 'vitest';
import { definePart, partList } from '../src/lifecycle/parts/part.ts';

/** A part that writes what happens to it into `log`. */
function logged(name: string, log: string[], fail?: 'start') {
  return definePart({
    name,
    start: async () => {
      if (fail === 'start') throw new Error(`${name} cannot start`);
      log.push(`start ${name}`);
    },
    close: (graceMs: number) => {
      log.push(`close ${name} ${graceMs}`);
    },
  });
}

describe('the daemon’s parts', () => {
  it('start in the order they were added and close in the reverse, with the grace given', async () => {
    const log: string[] = [];
    const parts = partList();
    for (const name of ['store', 'listeners', 'supervisor']) parts.add(logged(name, log));
    await parts.start();
    await parts.close(30_000);
    expect(log).toEqual([
      'start store',
      'start listeners',
      'start supervisor',
      'close supervisor 30000',
      'close listeners 30000',
      'close store 30000',
    ]);
  });

  it('stop at a start that fails; closing then closes every part built, none twice', async () => {
    const log: string[] = [];
    const parts = partList();
    parts.add(logged('store', log));
    parts.add(logged('listeners', log, 'start'));
    parts.add(logged('clock', log));
    await expect(parts.start()).rejects.toThrow('listeners cannot start');
    await parts.close(0);
    expect(log).toEqual(['start store', 'close clock 0', 'close listeners 0', 'close store 0']);
  });

  it('take parts without a start or a close, and hand back what a part carries', async () => {
    const parts = partList();
    const store = parts.add(definePart({ name: 'store', store: { answer: 42 } }));
    parts.add({ name: 'nothing' });
    await parts.start();
    await parts.close(0);
    expect(store.store.answer).toBe(42);
  });
});
