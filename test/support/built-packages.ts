/**
 * Another project, in a temporary folder, with some of our libraries installed as a user gets
 * them: built (scripts/build-package.ts) and copied into its node_modules, where neither Node 24
 * nor Node 20 strips types. Their third-party dependencies are linked from the repo's.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { buildPackage } from '../../scripts/build-package.ts';
import { systemNode20 } from '../../scripts/runtime-harness/runtimes.ts';

export const repoRoot = resolve(import.meta.dirname, '..', '..');

export interface Project {
  dir: string;
  /** Writes a file of the project. */
  write(name: string, text: string): void;
  remove(): void;
}

/**
 * @param ours workspace folders to build and install, e.g. `packages/plugin-kit`; what they
 * depend on besides each other is linked from the repo's node_modules, as npm would install it
 */
export function projectWith(ours: { dir: string; name: string }[]): Project {
  const dir = mkdtempSync(join(tmpdir(), 'svc-built-'));
  const names = new Set(ours.map(({ name }) => name));
  // Each dependency as the workspace resolves it: its own node_modules first (npm nests a
  // version there when the root holds another), then the root's. Linking the root's alone once
  // hid that the client's undici needed a newer Node than the one it was tested on.
  const linked = new Map<string, string>();
  for (const { dir: folder, name } of ours) {
    const out = buildPackage(join(repoRoot, folder), join(dir, 'node_modules', name));
    const manifest = JSON.parse(readFileSync(join(out, 'package.json'), 'utf8'));
    for (const dependency of Object.keys(manifest.dependencies ?? {})) {
      if (names.has(dependency)) continue;
      const nested = join(repoRoot, folder, 'node_modules', dependency);
      const from = existsSync(nested) ? nested : join(repoRoot, 'node_modules', dependency);
      const earlier = linked.get(dependency);
      if (earlier !== undefined && earlier !== from) {
        throw new Error(`${dependency} resolves to ${earlier} and ${from}: install one version`);
      }
      linked.set(dependency, from);
    }
  }
  for (const [dependency, from] of linked) {
    const at = join(dir, 'node_modules', dependency);
    mkdirSync(dirname(at), { recursive: true });
    symlinkSync(from, at, 'dir');
  }
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  return {
    dir,
    write: (name, text) => writeFileSync(join(dir, name), text),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * The system Node 20 for a test to run under, or `null` where there is none. CI has one (the
 * runtime matrix needs it too) and must not skip; a developer's machine without it may.
 */
export function node20OrSkip(): string | null {
  try {
    return systemNode20();
  } catch (error) {
    if (process.env.CI) throw error;
    return null;
  }
}
