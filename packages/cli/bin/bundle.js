/**
 * The CLI built into one ESM file, `dist/svc.mjs`, so a command loads one file instead of a few
 * hundred modules with their type stripping: what most of `svc --version` spent its time on.
 * Built from `src/main.ts` with whatever commands it imports (esbuild, a development
 * dependency) the first time it is missing or stale, then reused: `dist/svc.json` lists the
 * workspace files it was built from with their size and mtime, and a run checks those (a stat
 * each) plus `package-lock.json` for the dependencies. `@svc/daemon` stays outside: only the
 * commands that run a daemon load it, from its own sources. Plain JavaScript, so checking costs
 * no type stripping; when the bundle cannot be built or written, `null`: run the sources.
 */
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));
const ENTRY = join(PACKAGE, 'src', 'main.ts');
const DIST = join(PACKAGE, 'dist');
const BUNDLE = join(DIST, 'svc.mjs');
const MANIFEST = join(DIST, 'svc.json');
/** Where the workspace's dependencies are pinned: a change there rebuilds. */
const LOCK = resolve(PACKAGE, '..', '..', 'package-lock.json');

/** @typedef {{ inputs: [string, number, number][] }} Manifest */

/** @param {string} file @returns {[string, number, number] | null} */
function stamp(file) {
  try {
    const s = statSync(file);
    return [file, s.size, s.mtimeMs];
  } catch {
    return null;
  }
}

/** Whether every input is as it was when the bundle was built. */
function current() {
  try {
    /** @type {Manifest} */
    const manifest = JSON.parse(readFileSync(MANIFEST, 'utf8'));
    statSync(BUNDLE);
    return manifest.inputs.every(([file, size, mtime]) => {
      const now = stamp(file);
      return now !== null && now[1] === size && now[2] === mtime;
    });
  } catch {
    return false;
  }
}

/** Builds the bundle now; concurrent builders each write their own file and rename it in. */
async function build() {
  const { buildSync } = await import('esbuild');
  mkdirSync(DIST, { recursive: true });
  const tmp = join(DIST, `svc-${process.pid}.mjs.tmp`);
  const result = buildSync({
    entryPoints: [ENTRY],
    absWorkingDir: PACKAGE,
    outfile: tmp,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: `node${process.versions.node.split('.')[0]}`,
    external: ['@svc/daemon'],
    metafile: true,
    logLevel: 'silent',
    // CommonJS dependencies inside an ES module still call `require` for node's built-ins.
    banner: {
      js: "import { createRequire as __svcRequire } from 'node:module'; const require = __svcRequire(import.meta.url);",
    },
  });
  const inputs = Object.keys(result.metafile.inputs)
    .map((p) => resolve(PACKAGE, p))
    .filter((file) => !file.includes('/node_modules/'));
  const stamps = [...inputs, LOCK].map(stamp).filter((s) => s !== null);
  renameSync(tmp, BUNDLE);
  const manifestTmp = `${MANIFEST}.${process.pid}.tmp`;
  writeFileSync(manifestTmp, JSON.stringify({ inputs: stamps }));
  renameSync(manifestTmp, MANIFEST);
}

/** The bundle's path, built first if it must be; `null` to run the sources instead. */
export async function cliBundle() {
  if (process.env.SVC_CLI_SOURCES === '1') return null;
  if (current()) return BUNDLE;
  try {
    await build();
    return BUNDLE;
  } catch {
    return null;
  }
}
