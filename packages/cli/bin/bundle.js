/**
 * The CLI built into one ESM file, `dist/svc-<hash>/main.mjs`, so a command loads one file
 * instead of a few hundred modules with their type stripping: what most of `svc --version`
 * spent its time on. Built from `src/main.ts` with whatever commands it imports (esbuild, a
 * development dependency) the first time it is missing or stale, then reused: `dist/svc.json`
 * names the build's folder and lists the workspace files it was built from with their size and
 * mtime, and a run checks those (a stat each) plus `package-lock.json` for the dependencies. A
 * build goes to a folder of its own, never over one a running command may still load chunks
 * from. What is imported on demand (`@svc/daemon` by the daemon commands, the daemon itself by
 * `--foreground`) is split into chunks, loaded only then; the daemon's dependencies stay in
 * `node_modules`, and its files keep their own `import.meta.url`, so the paths it finds beside
 * itself (its entry, its broker's, the viewer) are the sources'. Plain JavaScript, so checking
 * costs no type stripping; when the bundle cannot be built or written, `null`: run the sources.
 */
import { createHash } from 'node:crypto';
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));
const ENTRY = join(PACKAGE, 'src', 'main.ts');
const DIST = join(PACKAGE, 'dist');
const MANIFEST = join(DIST, 'svc.json');
/** A build's folder, named for what it was built from: a build never replaces one in use. */
const BUILT = /^svc-[0-9a-f]{16}$/;
const DAEMON = resolve(PACKAGE, '..', 'daemon');
/** Where the workspace's dependencies are pinned: a change there rebuilds. */
const LOCK = resolve(PACKAGE, '..', '..', 'package-lock.json');

/** @typedef {{ dir: string, inputs: [string, number, number][] }} Manifest */

/** @param {string} file @returns {[string, number, number] | null} */
function stamp(file) {
  try {
    const s = statSync(file);
    return [file, s.size, s.mtimeMs];
  } catch {
    return null;
  }
}

/** The current bundle's entry when every input is as it was when it was built, else `null`. */
function current() {
  try {
    /** @type {Manifest} */
    const manifest = JSON.parse(readFileSync(MANIFEST, 'utf8'));
    const bundle = join(DIST, manifest.dir, 'main.mjs');
    statSync(bundle);
    const same = manifest.inputs.every(([file, size, mtime]) => {
      const now = stamp(file);
      return now !== null && now[1] === size && now[2] === mtime;
    });
    return same && BUILT.test(manifest.dir) ? bundle : null;
  } catch {
    return null;
  }
}

/** Builds the bundle now; concurrent builders each write their own folder and rename it in. */
async function build() {
  const esbuild = await import('esbuild');
  // Shared with the daemon's and the broker's bundles; TypeScript, stripped by Node.
  const { inPlace, inputFiles, nodeBundleOptions } = await import(
    '../../daemon/src/lifecycle/node-bundle.ts'
  );
  mkdirSync(DIST, { recursive: true });
  const tmp = join(DIST, `svc-${process.pid}.tmp`);
  rmSync(tmp, { recursive: true, force: true });
  const result = await esbuild.build(
    nodeBundleOptions({
      entryPoints: { main: ENTRY },
      absWorkingDir: PACKAGE,
      outdir: tmp,
      outExtension: { '.js': '.mjs' },
      splitting: true,
      // The daemon's files as they are but for `import.meta`, its dependencies left to node_modules.
      plugins: [inPlace(join(DAEMON, 'src'))],
    }),
  );
  const inputs = inputFiles(result.metafile, PACKAGE).filter(
    (file) => !file.includes('/node_modules/'),
  );
  const stamps = [...inputs, LOCK].map(stamp).filter((s) => s !== null);
  const dir = `svc-${createHash('sha256')
    .update(JSON.stringify([process.version, stamps]))
    .digest('hex')
    .slice(0, 16)}`;
  /** @type {string | undefined} */
  let previous;
  try {
    previous = JSON.parse(readFileSync(MANIFEST, 'utf8')).dir;
  } catch {
    // The first build.
  }
  // A builder that raced this one to the same sources has made the same folder: keep its own.
  if (statSync(join(DIST, dir), { throwIfNoEntry: false }) === undefined) {
    renameSync(tmp, join(DIST, dir));
  } else {
    rmSync(tmp, { recursive: true, force: true });
  }
  const manifestTmp = `${MANIFEST}.${process.pid}.tmp`;
  writeFileSync(manifestTmp, JSON.stringify({ dir, inputs: stamps }));
  renameSync(manifestTmp, MANIFEST);
  // Older builds go, but the one a run may still be loading its chunks from.
  for (const name of readdirSync(DIST)) {
    if (BUILT.test(name) && name !== dir && name !== previous) {
      rmSync(join(DIST, name), { recursive: true, force: true });
    }
  }
  return join(DIST, dir, 'main.mjs');
}

/** The bundle's path, built first if it must be; `null` to run the sources instead. */
export async function cliBundle() {
  if (process.env.SVC_CLI_SOURCES === '1') return null;
  try {
    return current() ?? (await build());
  } catch {
    return null;
  }
}
