/**
 * One story for Node versions: what the CLI's launcher refuses, what the packages' `engines`
 * say and what the README and docs/cli.md tell a person are the same floors.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (path: string) => readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8');
const engines = (pkg: string) =>
  (JSON.parse(read(`packages/${pkg}/package.json`)) as { engines?: { node?: string } }).engines
    ?.node;

describe('Node versions', () => {
  it("the CLI's launcher, its engines and its docs name 22.18 (23.6 on 23)", () => {
    const bin = read('packages/cli/bin/svc.js');
    expect(bin).toContain(
      'major < 22 || (major === 22 && minor < 18) || (major === 23 && minor < 6)',
    );
    expect(engines('cli')).toBe('^22.18.0 || >=23.6.0');
    expect(read('docs/cli.md')).toContain('Node.js 22.18 or newer (23.6 or newer on 23)');
    expect(read('README.md')).toMatch(
      /the daemon and the `svc` CLI, run from the repo \| 22\.18 or newer \(23\.6\+ on 23\)/,
    );
  });

  it('the built libraries: plugin-kit 20, the client 20.18.1, as their engines say', () => {
    expect(engines('plugin-kit')).toBe('>=20');
    expect(engines('client')).toBe('>=20.18.1');
    const readme = read('README.md');
    expect(readme).toMatch(/`@svc\/plugin-kit`, `@svc\/protocol` as built .*\| 20 or newer/);
    expect(readme).toMatch(/`@svc\/client` as built .*\| 20\.18\.1 or newer/);
    expect(read('packages/client/README.md')).toContain('Node ≥ 20.18.1');
    expect(read('packages/plugin-kit/README.md')).toContain('Node ≥ 20');
  });
});
