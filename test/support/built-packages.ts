/**
 * Another project, in a temporary folder, with some of our libraries installed as a user gets
 * them: built (scripts/build-package.ts) and copied into its node_modules, where neither Node 24
 * nor Node 20 strips types. Their third-party dependencies are linked from the repo's.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { buildPackage } from '../../scripts/build-package.ts';

export const repoRoot = resolve(import.meta.dirname, '..', '..');

export interface Project {
  dir: string;
  /** Writes a file of the project. */
  write(name: string, text: string): void;
  remove(): void;
}

/**
 * @param ours workspace folders to build and install, e.g. `packages/plugin-kit`
 * @param linked third-party packages they import, linked from the repo's node_modules
 */
export function projectWith(ours: { dir: string; name: string }[], linked: string[]): Project {
  const dir = mkdtempSync(join(tmpdir(), 'svc-built-'));
  for (const { dir: folder, name } of ours) {
    buildPackage(join(repoRoot, folder), join(dir, 'node_modules', name));
  }
  for (const dependency of linked) {
    const at = join(dir, 'node_modules', dependency);
    mkdirSync(dirname(at), { recursive: true });
    symlinkSync(join(repoRoot, 'node_modules', dependency), at, 'dir');
  }
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  return {
    dir,
    write: (name, text) => writeFileSync(join(dir, name), text),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
