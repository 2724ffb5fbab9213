/**
 * `npm run build -w <library>`: the library as it is published, JS + `.d.ts` (DESIGN §2), in the
 * package's `dist/` (or `--out DIR`), with a `package.json` of its own whose `exports` name the
 * built files. Publish that folder (`npm publish packages/plugin-kit/dist`).
 *
 * In the repo the workspace's `exports` stay on `src/*.ts`, which Node runs by type stripping:
 * no build step in the dev loop. Node strips no types under `node_modules` and Node 20 none at
 * all, so the source form is no package for anyone else; its `package.json` is `private` so that
 * npm refuses to publish it.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';

type Target = string | { [condition: string]: Target };
type Manifest = { name: string; exports: Record<string, Target>; [field: string]: unknown };

const tsc = join(import.meta.dirname, '..', 'node_modules', 'typescript', 'bin', 'tsc');

/**
 * Builds the library in `dir` into `out` (default `<dir>/dist`) with its `tsconfig.build.json`;
 * returns `out`. Throws when tsc fails, with its report on stderr.
 */
export function buildPackage(dir: string, out = join(dir, 'dist')): string {
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;
  // `out` is emptied first: never the package itself, nor a folder holding it.
  const within = relative(resolve(out), resolve(dir));
  if (within === '' || (!within.startsWith('..') && !isAbsolute(within))) {
    throw new Error(`${manifest.name}: --out ${out} holds the package itself`);
  }
  rmSync(out, { recursive: true, force: true });
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--outDir', out], {
    cwd: dir,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  writeFileSync(join(out, 'package.json'), `${JSON.stringify(published(manifest), null, 2)}\n`);
  for (const file of ['README.md', 'LICENSE']) {
    if (existsSync(join(dir, file))) copyFileSync(join(dir, file), join(out, file));
  }
  return out;
}

/** The workspace's manifest with each `./src/x.ts` export as the built `./x.js` and `./x.d.ts`. */
function published(manifest: Manifest): Record<string, unknown> {
  const {
    private: _private,
    files: _files,
    scripts: _scripts,
    devDependencies: _dev,
    exports,
    ...kept
  } = manifest;
  // `types` anywhere above a target (`types: { import: … }` too) makes it a declaration file.
  const built = (target: Target, types = false): Target => {
    if (typeof target !== 'string') {
      return Object.fromEntries(
        Object.entries(target).map(([key, t]) => [key, built(t, types || key === 'types')]),
      );
    }
    if (target === './package.json') return target;
    const match = /^\.\/src\/(.+)\.ts$/.exec(target);
    if (match === null) throw new Error(`${manifest.name}: export ${target} is not under ./src`);
    return `./${match[1]}${types ? '.d.ts' : '.js'}`;
  };
  return { ...kept, exports: built(exports) };
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { out: { type: 'string' } } });
  const dir = process.cwd();
  try {
    const out = buildPackage(dir, values.out === undefined ? undefined : resolve(values.out));
    console.log(`built in ${out}`);
  } catch (error) {
    // tsc has printed its report; anything else says what it is here
    console.error(`the build in ${dir} failed: ${(error as Error).message}`);
    process.exit(1);
  }
}
