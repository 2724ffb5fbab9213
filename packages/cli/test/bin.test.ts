import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const BIN = resolve(import.meta.dirname, '../bin/svc.js');
/** The current build's entry, as `dist/svc.json` names it. */
const bundle = () =>
  resolve(
    import.meta.dirname,
    '../dist',
    (
      JSON.parse(readFileSync(resolve(import.meta.dirname, '../dist/svc.json'), 'utf8')) as {
        dir: string;
      }
    ).dir,
    'main.mjs',
  );
const MAIN = resolve(import.meta.dirname, '../src/main.ts');

/** A Node too old for type stripping, when the machine has one (Debian's system Node, say). */
function oldNode(): string | undefined {
  for (const candidate of ['/usr/bin/node', '/usr/local/bin/node']) {
    if (!existsSync(candidate)) continue;
    const version = execFileSync(candidate, ['-p', 'process.versions.node'], { encoding: 'utf8' });
    const [major = 0, minor = 0] = version.trim().split('.').map(Number);
    if (major < 22 || (major === 22 && minor < 18)) return candidate;
  }
  return undefined;
}

describe('bin/svc.js', () => {
  it('runs the CLI on this Node', () => {
    const result = spawnSync(process.execPath, [BIN, '--version'], { encoding: 'utf8' });
    expect(result.status).toBe(0);
    expect(result.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('runs one bundled file, rebuilt when a source it was built from changes', () => {
    const version = () => spawnSync(process.execPath, [BIN, '--version'], { encoding: 'utf8' });
    expect(version().status).toBe(0);
    const manifest = JSON.parse(
      readFileSync(resolve(import.meta.dirname, '../dist/svc.json'), 'utf8'),
    ) as { inputs: [string, number, number][] };
    const inputs = manifest.inputs.map(([file]) => file);
    expect(inputs).toContain(MAIN);
    expect(inputs.some((file) => file.includes('/packages/cli/src/commands/'))).toBe(true);
    const first = bundle();
    const built = statSync(first).mtimeMs;
    expect(version().status).toBe(0);
    expect(bundle()).toBe(first); // current: reused as it is
    expect(statSync(first).mtimeMs).toBe(built);
    // A source edited since (its mtime is enough to tell): the next run builds again, into a
    // folder of its own, and keeps the one a run may still be loading.
    const { atime, mtime } = statSync(MAIN);
    utimesSync(MAIN, atime, new Date(mtime.getTime() + 1_000));
    try {
      expect(version().status).toBe(0);
      expect(bundle()).not.toBe(first);
      expect(existsSync(bundle())).toBe(true);
      expect(existsSync(first)).toBe(true);
    } finally {
      utimesSync(MAIN, atime, mtime);
    }
  });

  it('starts and stops a daemon from the bundle, whose daemon files find what is beside them', () => {
    // Short, in /tmp: unix socket paths are limited to about 104 bytes.
    const home = mkdtempSync('/tmp/svc-bin-');
    const svc = (...args: string[]) =>
      spawnSync(process.execPath, [BIN, '--home', home, ...args], {
        encoding: 'utf8',
        env: { ...process.env, SVC_HOME: '', SVC_BASE_URL: '', SVC_TOKEN: '', NO_COLOR: '1' },
      });
    try {
      const started = svc('daemon', 'start', '--json');
      expect(started.stderr).toBe('');
      expect(started.status).toBe(0);
      const status = svc('status', '--json');
      expect(status.status).toBe(0);
      expect(JSON.parse(status.stdout)).toMatchObject({ status: { status: 'ready', home } });
      // Asking the daemon loads neither undici: the client's nor Node's own (`local-client.ts`).
      const hook = `data:text/javascript,process.on('exit', () => process.stderr.write('undici:' + process.moduleLoadList.some((m) => m.includes('undici'))))`;
      const light = spawnSync(process.execPath, ['--import', hook, BIN, '--home', home, 'status'], {
        encoding: 'utf8',
        env: { ...process.env, SVC_HOME: '', SVC_BASE_URL: '', SVC_TOKEN: '', NO_COLOR: '1' },
      });
      expect(light.stdout).toMatch(/^status +ready$/m);
      expect(light.stderr).toBe('undici:false');
    } finally {
      expect(svc('daemon', 'stop').status).toBe(0);
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('runs the sources as they are with SVC_CLI_SOURCES=1', () => {
    const result = spawnSync(process.execPath, [BIN, '--version'], {
      encoding: 'utf8',
      env: { ...process.env, SVC_CLI_SOURCES: '1' },
    });
    expect(result.status).toBe(0);
    expect(result.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  const old = oldNode();
  it.runIf(old)('refuses an older Node with one clear line', () => {
    const result = spawnSync(old!, [BIN, '--version'], { encoding: 'utf8' });
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^svc: Node\.js \S+ is too old; svc needs Node\.js 22\.18 or newer.*\n$/,
    );
  });
});
