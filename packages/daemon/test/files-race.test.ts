/**
 * A directory swapped for a link between the daemon's check of a path and its open: the files
 * routes re-check what they opened (`/proc/self/fd`) and work through that descriptor, so no
 * swap leads a scoped caller out. A race, run for a bounded time: before the re-check, about one
 * read in a thousand read the file outside.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, scratchDirs, startTestDaemon, type TestDaemon } from './helpers.ts';

let t: TestDaemon;
beforeAll(async () => {
  t = await startTestDaemon();
});
afterAll(() => t.stop());

const scratch = scratchDirs('svc-files-race-');

// Swaps <base>/in/d, a real directory, with a link to <base>/out and back, until killed.
const SWAPPER = `
const { renameSync, symlinkSync, unlinkSync } = require('node:fs');
const base = process.argv[1];
for (;;) {
  try { renameSync(base + '/in/d', base + '/in/d_real'); symlinkSync(base + '/out', base + '/in/d'); } catch {}
  try { unlinkSync(base + '/in/d'); renameSync(base + '/in/d_real', base + '/in/d'); } catch {}
}`;

describe('files against a directory swapped for a link', () => {
  it('never reads, lists or writes outside the scope', async () => {
    const base = realpathSync(scratch());
    mkdirSync(join(base, 'in', 'd'), { recursive: true });
    mkdirSync(join(base, 'out'));
    writeFileSync(join(base, 'in', 'd', 'secret.txt'), 'inside');
    writeFileSync(join(base, 'out', 'secret.txt'), 'OUTSIDE-SECRET');
    const { token } = await t.appToken(['svc:llm', 'svc:act', `svc:files:rw:user:${base}/in`]);
    const swapper = spawn(process.execPath, ['-e', SWAPPER, base], { stdio: 'ignore' });
    const leaks: string[] = [];
    let rounds = 0;
    try {
      const end = Date.now() + 5_000;
      for (; Date.now() < end; rounds++) {
        const read = await t.call(
          `/v1/files/peek?path=${encodeURIComponent(`${base}/in/d/secret.txt`)}`,
          { token },
        );
        if ((await read.text()).includes('OUTSIDE-SECRET')) leaks.push('read');
        const listed = await t.call(`/v1/files/list?path=${encodeURIComponent(`${base}/in/d`)}`, {
          token,
        });
        const entries =
          listed.status === 200
            ? ((await listed.json()) as { entries: { size: number }[] }).entries
            : [];
        if (entries.some((e) => e.size === 'OUTSIDE-SECRET'.length)) leaks.push('list');
        await t.call('/v1/files/write', {
          ...json({ path: `${base}/in/d/planted-${rounds}.txt`, content: 'p' }),
          token,
        });
      }
    } finally {
      swapper.kill();
    }
    const planted = readdirSync(join(base, 'out')).filter((n) => n.startsWith('planted'));
    expect({ leaks, planted }).toEqual({ leaks: [], planted: [] });
    expect(rounds).toBeGreaterThan(100);
  }, 30_000);
});
