import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const BIN = resolve(import.meta.dirname, '../bin/svc.js');

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
