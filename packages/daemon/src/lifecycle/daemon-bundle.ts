/**
 * The daemon's entry built into one ESM file, `dist/daemon/main.mjs`, which `spawnDaemon` runs
 * instead of `src/main.ts` when it can: the process then loads one file of its own code instead
 * of a few hundred modules with their type stripping, most of a daemon's start. Built with
 * esbuild (a development dependency) the first time it is missing or stale, then reused:
 * `dist/daemon.json` lists the workspace files it was built from with their size and mtime (a
 * stat each to check) plus `package-lock.json`. Dependencies stay in `node_modules`, loaded as
 * they are, and each file keeps its own `import.meta.url`, so what the daemon finds beside its
 * sources (the broker's entry, the grep worker, the viewer, `package.json`) is where it was.
 * Without esbuild, or when a build fails, the caller runs `src/main.ts`.
 */
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inPlace, inputFiles, nodeBundleOptions } from './node-bundle.ts';

const PACKAGE = fileURLToPath(new URL('../../', import.meta.url));
const ENTRY = join(PACKAGE, 'src', 'main.ts');
const DIST = join(PACKAGE, 'dist');
const BUNDLE = join(DIST, 'daemon', 'main.mjs');
const MANIFEST = join(DIST, 'daemon.json');
const WORKSPACE = resolve(PACKAGE, '..', '..');
const LOCK = join(WORKSPACE, 'package-lock.json');

type Stamp = [file: string, size: number, mtimeMs: number];

/** `dist/daemon/main.mjs`, built now unless current; `null` when it cannot be had. */
export async function daemonBundle(): Promise<string | null> {
  if (current()) return BUNDLE;
  try {
    await build();
    return BUNDLE;
  } catch {
    return null;
  }
}

function stamp(file: string): Stamp | null {
  try {
    const s = statSync(file);
    return [file, s.size, s.mtimeMs];
  } catch {
    return null;
  }
}

function current(): boolean {
  try {
    const { inputs } = JSON.parse(readFileSync(MANIFEST, 'utf8')) as { inputs: Stamp[] };
    statSync(BUNDLE);
    return inputs.every(([file, size, mtime]) => {
      const now = stamp(file);
      return now !== null && now[1] === size && now[2] === mtime;
    });
  } catch {
    return false;
  }
}

async function build(): Promise<void> {
  const esbuild = await import('esbuild');
  mkdirSync(dirname(BUNDLE), { recursive: true });
  const tmp = `${BUNDLE}.${process.pid}.tmp`;
  const result = await esbuild.build(
    nodeBundleOptions({
      entryPoints: [ENTRY],
      absWorkingDir: PACKAGE,
      outfile: tmp,
      // Only the workspace is bundled: its dependencies load from node_modules as they are.
      plugins: [inPlace(join(WORKSPACE, 'packages'))],
    }),
  );
  const inputs = inputFiles(result.metafile, PACKAGE);
  const stamps = [...inputs, LOCK].map(stamp).filter((s) => s !== null);
  // One file, replaced whole: a daemon starting from the old one has it open already.
  renameSync(tmp, BUNDLE);
  const manifestTmp = `${MANIFEST}.${process.pid}.tmp`;
  writeFileSync(manifestTmp, JSON.stringify({ inputs: stamps }));
  renameSync(manifestTmp, MANIFEST);
}
