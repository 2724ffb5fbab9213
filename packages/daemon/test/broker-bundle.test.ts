/**
 * The broker bundle: built once per change of its sources, reused by a later daemon without a
 * build, and the real agent host entry bundled runs (it refuses a bad launch on its channel, as
 * the `.ts` entry does, and exits when its stdin closes).
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

  it("checks a current bundle's sources off the event loop", async () => {
    const cache = join(dir, 'loop');
    const entry = join(dir, 'loop-entry.ts');
    writeFileSync(entry, "console.log('loop');\n");
    const built = await brokerBundle(entry, cache);
    // An immediate set now runs at the loop's next check phase: only if the check let it turn.
    let turned = false;
    setImmediate(() => {
      turned = true;
    });
    expect(await brokerBundle(entry, cache)).toBe(built);
    expect(turned).toBe(true);
  });

  it('bundles the real agent host entry, which runs from the cache directory', async () => {
    const entry = fileURLToPath(new URL('../src/broker/host.ts', import.meta.url));
    const file = await brokerBundle(entry, join(dir, 'real'));
    const result = spawnSync(process.execPath, [file], {
      input: `${JSON.stringify({ launch: { node_id: 'node_x', token: 'svc_node_secret' } })}\n`,
      stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(result.status).toBe(0);
    const answers = String(result.output[3])
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(answers.at(-1)).toEqual({ ended: 'node_x', kind: 'bad_launch' });
    expect(answers[0].log).toMatchObject({ node_id: 'node_x', msg: 'bad launch message on stdin' });
    // Never echoed: the launch holds the token.
    expect(String(result.output[3])).not.toContain('svc_node_secret');
    // Without its channel a host refuses to start.
    const bare = run(file);
    expect(bare.status).toBe(2);
    expect(bare.stderr).toContain('no answer channel on fd 3');
  });
});
