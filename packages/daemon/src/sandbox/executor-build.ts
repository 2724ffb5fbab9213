/**
 * The C executor of a node's sandbox (executor.c), compiled on first need with the host's `cc`
 * into the daemon's cache, as `<cache>/sandbox-executor-<hash>`, `<hash>` covering the source,
 * the flags and the architecture: built once per change, atomically (a temporary name, then a
 * rename), so processes that race build the same file and every one finds a whole binary.
 * Static where the C library allows it, else dynamic (the sandbox binds the system read-only, so
 * the library is there). Where no compiler works, sessions run the Node executor instead: as
 * confined, only heavier; why is logged once per process.
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  accessSync,
  constants,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the daemon's plan says the source is and its binary belongs (the plan's `host`). */
export interface NativeExecutor {
  source: string;
  binary: string;
}

const SOURCE = fileURLToPath(new URL('./executor.c', import.meta.url));
const FLAGS = ['-O2', '-std=gnu11'];
const COMPILERS = ['cc', 'gcc'];
const BUILT = /^sandbox-executor-[0-9a-f]{16}$/;
const LEFT = /^sandbox-executor-[0-9a-f]{16}\.\d+-[0-9a-f]{8}\.tmp$/;
const BUILD_TIMEOUT_MS = 120_000;

/**
 * Where this daemon's executor is (or will be) in `cacheDir`; `null` when its source cannot be
 * read (an install without it): sessions then run the Node executor.
 */
export function nativeExecutorIn(cacheDir: string): NativeExecutor | null {
  let text: Buffer;
  try {
    text = readFileSync(SOURCE);
  } catch {
    return null;
  }
  const hash = createHash('sha256')
    .update(`${process.platform}\0${process.arch}\0${FLAGS.join(' ')}\0`)
    .update(text)
    .digest('hex')
    .slice(0, 16);
  return { source: SOURCE, binary: join(cacheDir, `sandbox-executor-${hash}`) };
}

const builds = new Map<string, Promise<string | null>>();

/**
 * The path of `spec`'s binary, built now unless it is there; `null` (logged once) when no
 * compiler can build it. `log` takes that one line.
 */
export function nativeExecutor(
  spec: NativeExecutor,
  log: (why: string) => void = warn,
): Promise<string | null> {
  let build = builds.get(spec.binary);
  if (build === undefined) {
    build = ensure(spec).catch((error: unknown) => {
      log((error as Error).message);
      return null;
    });
    builds.set(spec.binary, build);
  }
  return build;
}

async function ensure(spec: NativeExecutor): Promise<string> {
  if (runnable(spec.binary)) return spec.binary;
  const dir = join(spec.binary, '..');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tmp = `${spec.binary}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  const tried: string[] = [];
  try {
    for (const cc of COMPILERS) {
      // Static first: nothing then depends on what the sandbox shows of the system's libraries.
      for (const link of [['-static'], []]) {
        const said = await compile(cc, [...FLAGS, ...link, '-o', tmp, spec.source]);
        if (said === null) {
          renameSync(tmp, spec.binary);
          removeOthers(dir, spec.binary);
          return spec.binary;
        }
        tried.push(`${[cc, ...link].join(' ')}: ${said}`);
        // A compiler that is not there has no dynamic build either.
        if (said.startsWith('not found')) break;
      }
    }
  } finally {
    rmSync(tmp, { force: true });
  }
  throw new Error(
    `the sandbox's C executor could not be built, so node sandboxes run the Node executor (as confined, about 40 MB more each): ${tried.join('; ')}`,
  );
}

/** `null` once `cc args` built it, else what went wrong, short. */
function compile(cc: string, args: string[]): Promise<string | null> {
  return new Promise((resolve) => {
    execFile(cc, args, { timeout: BUILD_TIMEOUT_MS, encoding: 'utf8' }, (error, _out, stderr) => {
      if (error === null) return resolve(null);
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return resolve('not found on PATH');
      const said = stderr.trim().split('\n').slice(-3).join(' / ');
      resolve(said === '' ? error.message : said.slice(0, 400));
    });
  });
}

function runnable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Binaries of earlier sources (a sandbox still running one keeps its inode through its bind),
 * and what builders killed mid-build left.
 */
function removeOthers(dir: string, keep: string): void {
  const old = Date.now() - 2 * BUILD_TIMEOUT_MS;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    try {
      if (BUILT.test(name) ? path !== keep : LEFT.test(name) && statSync(path).mtimeMs < old) {
        rmSync(path, { force: true });
      }
    } catch {
      // Gone meanwhile.
    }
  }
}

function warn(why: string): void {
  process.stderr.write(
    `${JSON.stringify({ time: new Date().toISOString(), level: 'warn', pid: process.pid, msg: why })}\n`,
  );
}
