/**
 * The broker bundle: built once per change of its sources, reused by a later daemon without a
 * build, and the real broker entry bundled runs (it refuses an empty launch, exit 2, as the
 * `.ts` entry does).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { brokerBundle } from '../src/supervisor/broker-bundle.ts';

const dir = mkdtempSync(join(tmpdir(), 'svc-bundle-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const run = (file: string) =>
  spawnSync(process.execPath, [file], { input: '', encoding: 'utf8', timeout: 20_000 });

describe('brokerBundle', () => {
  it('builds once per change of its sources and keeps only the current bundle', async () => {
    const cache = join(dir, 'cache');
    const entry = join(dir, 'entry.ts');
    writeFileSync(join(dir, 'word.ts'), "export const word: string = 'one';\n");
    writeFileSync(entry, "import { word } from './word.ts';\nconsole.log(word);\n");

    const first = await brokerBundle(entry, cache);
    expect(run(first).stdout).toBe('one\n');
    const builtAt = statSync(first).mtimeMs;
    const again = await brokerBundle(entry, cache);
    expect(again).toBe(first);
    expect(statSync(again).mtimeMs).toBe(builtAt);

    writeFileSync(join(dir, 'word.ts'), "export const word: string = 'two';\n");
    const changed = await brokerBundle(entry, cache);
    expect(changed).not.toBe(first);
    expect(run(changed).stdout).toBe('two\n');
    expect(readdirSync(cache).filter((n) => n.endsWith('.mjs'))).toEqual([
      changed.slice(cache.length + 1),
    ]);
  });

  it('bundles the real broker entry, which runs from the cache directory', async () => {
    const entry = fileURLToPath(new URL('../src/broker/main.ts', import.meta.url));
    const file = await brokerBundle(entry, join(dir, 'real'));
    const result = run(file);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('bad launch message on stdin');
  });
});
