import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { loadMallocTrim, mallocTrimmer } from '../src/lifecycle/malloc-trim.ts';

const scratch = mkdtempSync(join(tmpdir(), 'svc-malloc-trim-'));
let dirs = 0;
const freshCache = () => join(scratch, `cache-${++dirs}`);

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const builtIn = (dir: string) =>
  readdirSync(dir).filter((n) => /^malloc-trim-[0-9a-f]{16}$/.test(n));

describe('the C library trim (a Node-API addon built on first need)', () => {
  it('is built into the cache, for this user alone, and loaded from there', async () => {
    const cache = freshCache();
    const trim = await loadMallocTrim(cache, (why) => expect.fail(why));
    expect(typeof trim).toBe('function');
    expect(typeof trim?.()).toBe('boolean');
    const [name] = builtIn(cache);
    expect(name).toBeDefined();
    const stat = statSync(join(cache, name!));
    expect(stat.mode & 0o022).toBe(0);
    expect(statSync(cache).mode & 0o077).toBe(0);
  });

  it('builds again over a file another user could have changed, and says why', async () => {
    const cache = freshCache();
    expect(await loadMallocTrim(cache)).not.toBeNull();
    const file = join(cache, builtIn(cache)[0]!);
    chmodSync(file, 0o777);
    // Another process: this one holds the first build loaded, and its builds are remembered.
    const module = fileURLToPath(new URL('../src/lifecycle/malloc-trim.ts', import.meta.url));
    const script = `
      import { loadMallocTrim } from ${JSON.stringify(module)};
      const said = [];
      const trim = await loadMallocTrim(${JSON.stringify(cache)}, (why) => said.push(why));
      console.log(JSON.stringify({ loaded: typeof trim, said }));
    `;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--input-type=module', '-e', script],
      {
        timeout: 60_000,
      },
    );
    const out = JSON.parse(stdout) as { loaded: string; said: string[] };
    expect(out.loaded).toBe('function');
    expect(out.said.join('\n')).toMatch(/is writable by its group or others .*built again/);
    expect(statSync(file).mode & 0o022).toBe(0);
  }, 90_000);

  it('without a compiler: nothing is trimmed, why is said once, and it is not tried again', async () => {
    const saved = process.env.PATH;
    const said: string[] = [];
    const trims: boolean[] = [];
    let loaded!: () => void;
    const done = new Promise<void>((resolve) => {
      loaded = resolve;
    });
    process.env.PATH = join(scratch, 'no-bin');
    try {
      const trim = mallocTrimmer(
        freshCache,
        (why) => {
          said.push(why);
          loaded();
        },
        (released) => trims.push(released),
      );
      trim();
      await done;
      trim();
      trim();
    } finally {
      process.env.PATH = saved;
    }
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/trim .*could not be built, so .*stays resident: cc: not found/);
    expect(trims).toEqual([]);
  });

  it('trims once loaded, then at each call', async () => {
    const trims: boolean[] = [];
    let first!: () => void;
    const trimmed = new Promise<void>((resolve) => {
      first = resolve;
    });
    const trim = mallocTrimmer(
      freshCache,
      (why) => expect.fail(why),
      (released) => {
        trims.push(released);
        first();
      },
    );
    trim();
    await trimmed;
    trim();
    trim();
    expect(trims).toHaveLength(3);
  });
});

describe('the trim, in a real Node process', () => {
  it('gives back the free pages between live chunks, which free() alone keeps', async () => {
    const module = fileURLToPath(new URL('../src/lifecycle/malloc-trim.ts', import.meta.url));
    // Native chunks (Buffers' backing stores, from malloc), one in 64 kept: the heap is then
    // mostly free, in runs between kept chunks, below its top, where free() returns nothing.
    // Two full collections: the second waits for the first's sweep, so every free has run.
    const script = `
      import { loadMallocTrim } from ${JSON.stringify(module)};
      const trim = await loadMallocTrim(${JSON.stringify(freshCache())}, (why) => { throw new Error(why); });
      const rss = () => process.memoryUsage.rss() / 1048576;
      const keep = [];
      let junk = [];
      for (let i = 0; i < 100000; i++) {
        const b = Buffer.allocUnsafeSlow(1024);
        if (i % 64 === 0) keep.push(b);
        else junk.push(b);
      }
      junk = [];
      gc();
      gc();
      const before = rss();
      const released = trim();
      console.log(JSON.stringify({ before, after: rss(), released, kept: keep.length }));
    `;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--expose-gc', '--input-type=module', '-e', script],
      { timeout: 60_000 },
    );
    const { before, after, released } = JSON.parse(stdout) as {
      before: number;
      after: number;
      released: boolean;
    };
    expect(released).toBe(true);
    // About 100 MB were freed; at least half of it goes back.
    expect(before - after).toBeGreaterThan(50);
  }, 90_000);
});
