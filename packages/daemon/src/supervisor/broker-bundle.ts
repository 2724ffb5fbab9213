/**
 * The broker entry built into one ESM file with esbuild, so a broker loads one file instead of a
 * few hundred modules with their type stripping: about half the CPU of a broker's start. Built
 * once per change of its sources into `<cache>/broker-<hash>.mjs`, `<hash>` covering the content
 * of every file the bundle was built from; `broker.json` lists those files, so a later daemon
 * checks the bundle by reading them, without building. esbuild is a development dependency:
 * without it (or when a build fails) the caller keeps the `.ts` entry.
 */
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inputFiles, nodeBundleOptions } from '../lifecycle/node-bundle.ts';
import { DAEMON_VERSION } from '../version.ts';

/** Reads `../package.json` beside itself, which a bundle elsewhere has not: built in instead. */
const VERSION_MODULE = fileURLToPath(new URL('../version.ts', import.meta.url));
const MANIFEST = 'broker.json';
const BUNDLE = /^broker-[0-9a-f]{16}\.mjs$/;

interface Manifest {
  hash: string;
  inputs: string[];
}

/** The bundle of `entry` in `cacheDir`, built now unless a current one is there. */
export async function brokerBundle(entry: string, cacheDir: string): Promise<string> {
  mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
  const manifestFile = join(cacheDir, MANIFEST);
  const cached = readManifest(manifestFile);
  if (cached !== null && (await hashOf(cached.inputs)) === cached.hash) {
    const file = join(cacheDir, `broker-${cached.hash}.mjs`);
    if (existsSync(file)) return file;
  }
  const { build } = await import('esbuild');
  const workDir = dirname(entry);
  const tmp = join(cacheDir, `broker-build-${process.pid}.mjs`);
  const result = await build(
    nodeBundleOptions({
      entryPoints: [entry],
      absWorkingDir: workDir,
      outfile: tmp,
      plugins: [
        {
          name: 'svc-daemon-version',
          setup(b) {
            b.onLoad({ filter: /version\.ts$/ }, (args) =>
              args.path === VERSION_MODULE
                ? { contents: `export const DAEMON_VERSION = ${JSON.stringify(DAEMON_VERSION)};` }
                : undefined,
            );
          },
        },
      ],
    }),
  );
  const inputs = inputFiles(result.metafile, workDir);
  const hash = await hashOf(inputs);
  if (hash === null) throw new Error('an input of the broker bundle changed while it was built');
  const file = join(cacheDir, `broker-${hash}.mjs`);
  renameSync(tmp, file);
  for (const name of readdirSync(cacheDir)) {
    if (BUNDLE.test(name) && join(cacheDir, name) !== file) rmSync(join(cacheDir, name));
  }
  writeFileSync(manifestFile, JSON.stringify({ hash, inputs } satisfies Manifest), { mode: 0o600 });
  return file;
}

/**
 * The 16-hex-digit hash of the inputs' paths and contents; `null` when one cannot be read. Read
 * off the event loop: a few hundred files read at the daemon's first launch held it 50–70 ms
 * (a profile of bench:nodes), while the nodes it had just started waited for their answers.
 */
async function hashOf(inputs: readonly string[]): Promise<string | null> {
  let contents: Buffer[];
  try {
    contents = await Promise.all(inputs.map((input) => readFile(input)));
  } catch {
    return null;
  }
  const hash = createHash('sha256').update(`${DAEMON_VERSION}\0${process.version}\0`);
  inputs.forEach((input, i) => {
    hash.update(`${input}\0`).update(contents[i]!).update('\0');
  });
  return hash.digest('hex').slice(0, 16);
}

function readManifest(file: string): Manifest | null {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<Manifest>;
    const ok = typeof parsed.hash === 'string' && Array.isArray(parsed.inputs);
    return ok ? (parsed as Manifest) : null;
  } catch {
    return null;
  }
}
