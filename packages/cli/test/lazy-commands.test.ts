/**
 * A run imports only the command it names: `svc --version` none, `svc status` its own, while the
 * help, `completion` and an unknown word get the whole tree. The bundle keeps the protocol's
 * schemas and route table, and undici, out of what the light commands load.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildProgram, type Io } from '../src/index.ts';
import { COMMAND_NAMES, registersFor } from '../src/lazy-commands.ts';

const io: Io = { stdout: () => {}, stderr: () => {}, stdoutIsTTY: false, env: {} };
const ALL = COMMAND_NAMES.filter((name) => name !== 'attachment').length;

describe('registersFor', () => {
  it('names every top-level command of the whole tree, aliases too', async () => {
    const program = buildProgram({ io, exitCode: 0 }, await registersFor([]));
    const names = program.commands
      .flatMap((c) => [c.name(), ...c.aliases()])
      .filter((name) => name !== 'help');
    expect([...names].sort()).toEqual([...COMMAND_NAMES].sort());
  });

  it.each([
    [['--version'], 0],
    [['-V'], 0],
    [['status'], 1],
    [['--home', '/tmp/h', '--json', 'status'], 1],
    [['--home=/tmp/h', 'node', 'ls'], 1],
    [['attachment', 'link'], 1],
    [['--version', '--help'], ALL],
    [[], ALL],
    [['help', 'status'], ALL],
    [['--help'], ALL],
    [['completion', 'bash'], ALL],
    [['nodes'], ALL],
  ])('svc %j loads %d command module(s)', async (args, count) => {
    expect(await registersFor(args)).toHaveLength(count);
  });

  it('still suggests a command for a misspelt one', async () => {
    const { inProcessSvc } = await import('./support.ts');
    const res = await inProcessSvc(() => '/nonexistent')('stauts');
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/Did you mean status\?/);
  });
});

describe('the bundle', () => {
  const BIN = resolve(import.meta.dirname, '../bin/svc.js');
  const DIST = resolve(import.meta.dirname, '../dist');

  /** The files `file` loads before it runs: its static imports, transitively. */
  function staticGraph(dir: string, file: string, seen = new Set<string>()): Set<string> {
    if (seen.has(file)) return seen;
    seen.add(file);
    const code = readFileSync(join(dir, file), 'utf8');
    for (const m of code.matchAll(/^import (?:[^;]*? from )?"\.\/([^"]+)";/gms)) {
      staticGraph(dir, m[1]!, seen);
    }
    return seen;
  }

  it('keeps zod, the schemas, the route table and undici out of `--version` and `status`', () => {
    expect(spawnSync(process.execPath, [BIN, '--version']).status).toBe(0);
    const { dir: built } = JSON.parse(readFileSync(join(DIST, 'svc.json'), 'utf8')) as {
      dir: string;
    };
    const dir = join(DIST, built);
    const main = readFileSync(join(dir, 'main.mjs'), 'utf8');
    const status = /import\("\.\/(status-[\w-]+\.mjs)"\)/.exec(main)?.[1];
    expect(status).toBeDefined();
    const loaded = [...staticGraph(dir, 'main.mjs'), ...staticGraph(dir, status!)];
    // And the local client `status` imports when it runs.
    const dynamic = loaded.flatMap((file) =>
      [...readFileSync(join(dir, file), 'utf8').matchAll(/import\("\.\/([\w-]+\.mjs)"\)/g)].map(
        (m) => m[1]!,
      ),
    );
    const local = dynamic.find((file) => file.startsWith('local-client-'));
    expect(local).toBeDefined();
    loaded.push(...staticGraph(dir, local!));
    const sources = [...new Set(loaded)].flatMap((file) =>
      [...readFileSync(join(dir, file), 'utf8').matchAll(/^\/\/ (\S+\.[jt]s)$/gm)].map((m) => m[1]),
    );
    expect(sources).toContain('../client/src/client.ts');
    expect(sources).toContain('src/local-client.ts');
    expect(sources.filter((s) => s?.includes('/zod/') || s?.includes('/undici/'))).toEqual([]);
    expect(sources.filter((s) => s?.includes('protocol/src/schemas/'))).toEqual([
      '../protocol/src/schemas/memory-space.ts',
    ]);
    // The routes' paths alone (`pathOf`), without the table's schemas.
    expect(sources.filter((s) => s?.includes('protocol/src/routes/'))).toEqual([
      '../protocol/src/routes/paths.ts',
    ]);
  });
});
