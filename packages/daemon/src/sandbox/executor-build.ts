/**
 * The C executor of a node's sandbox (executor.c), compiled on first need with the host's `cc`
 * into the user's cache (executor-cache.ts: `~/.cache/svc`, else the daemon home's), as
 * `<cache>/sandbox-executor-<hash>`, `<hash>` covering the source (and native-common.h, the
 * header it shares with the launcher), the flags and the architecture: built once per change for
 * every daemon of this user, atomically (a temporary name, then a rename), so processes that race
 * build the same file and every one finds a whole binary. Static where the C library allows it,
 * else dynamic (the sandbox binds the system read-only, so the library is there). A binary is
 * used only while it is a regular file this user owns that no group or other may write; one that
 * is not is built again over it, why logged. Where no compiler works, sessions run the Node executor instead: as confined, only
 * heavier; why is logged once per process.
 *
 * The agent host's sandbox launcher (launcher.c) is built the same way, beside it, as
 * `<cache>/sandbox-launcher-<hash>`; without it a host spawns its sandboxes itself.
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  accessSync,
  chmodSync,
  constants,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  type Stats,
  statSync,
} from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the daemon's plan says the source is and its binary belongs (the plan's `host`). */
export interface NativeExecutor {
  source: string;
  binary: string;
}

const SOURCE = fileURLToPath(new URL('./executor.c', import.meta.url));
const FLAGS = ['-O2', '-std=gnu11'];
const COMPILERS = ['cc', 'gcc'];
const BUILT = /^sandbox-(executor|launcher)-[0-9a-f]{16}$/;
const LEFT = /^sandbox-(executor|launcher)-[0-9a-f]{16}\.\d+-[0-9a-f]{8}\.tmp$/;
const BUILD_TIMEOUT_MS = 120_000;
/**
 * Another source's binary is removed once this old: a daemon of another version sharing the
 * cache keeps its own meanwhile (and builds it again, should it need it after).
 */
const STALE_BINARY_MS = 24 * 60 * 60 * 1000;

/**
 * Where this daemon's executor is (or will be) in `cacheDir`; `null` when its source cannot be
 * read (an install without it): sessions then run the Node executor.
 */
export function nativeExecutorIn(cacheDir: string): NativeExecutor | null {
  return nativeIn(cacheDir, SOURCE, 'sandbox-executor');
}

/** The sandbox launcher's build beside `executor`'s (same cache, its own source and hash). */
export function nativeLauncherOf(executor: NativeExecutor): NativeExecutor | null {
  return nativeIn(
    join(executor.binary, '..'),
    join(executor.source, '..', 'launcher.c'),
    'sandbox-launcher',
  );
}

function nativeIn(cacheDir: string, source: string, name: string): NativeExecutor | null {
  let text: Buffer;
  let common: Buffer;
  try {
    text = readFileSync(source);
    // The header both programs include (`#include "native-common.h"`, beside them).
    common = readFileSync(join(source, '..', 'native-common.h'));
  } catch {
    return null;
  }
  const hash = createHash('sha256')
    .update(`${process.platform}\0${process.arch}\0${FLAGS.join(' ')}\0`)
    .update(text)
    .update(common)
    .digest('hex')
    .slice(0, 16);
  return { source, binary: join(cacheDir, `${name}-${hash}`) };
}

/** What a log line calls the binary of `spec`, and what runs in its stead. */
function named(binary: string): { what: string; instead: string } {
  return binary.includes('sandbox-launcher-')
    ? { what: "the sandboxes' C launcher", instead: 'agent hosts start their sandboxes themselves' }
    : {
        what: "the sandbox's C executor",
        instead: 'node sandboxes run the Node executor (as confined, about 40 MB more each)',
      };
}

const builds = new Map<string, Promise<string | null>>();

/**
 * The path of `spec`'s binary, built now unless a trusted one is there; `null` (logged once)
 * when no compiler can build it. `log` takes what is logged.
 */
export async function nativeExecutor(
  spec: NativeExecutor,
  log: (why: string) => void = warn,
): Promise<string | null> {
  const found = await buildOnce(spec, log);
  if (found === null || distrust(found) === null) return found;
  // Changed since this process built or checked it (removed, replaced): once more, checked.
  builds.delete(spec.binary);
  return buildOnce(spec, log);
}

function buildOnce(spec: NativeExecutor, log: (why: string) => void): Promise<string | null> {
  let build = builds.get(spec.binary);
  if (build === undefined) {
    build = ensure(spec, log).catch((error: unknown) => {
      log((error as Error).message);
      return null;
    });
    builds.set(spec.binary, build);
  }
  return build;
}

async function ensure(spec: NativeExecutor, log: (why: string) => void): Promise<string> {
  const doubt = distrust(spec.binary);
  if (doubt === null) return spec.binary;
  if (doubt !== MISSING) {
    log(`${named(spec.binary).what} ${spec.binary} ${doubt}, so it is built again`);
  }
  const dir = join(spec.binary, '..');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tmp = `${spec.binary}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  const tried: string[] = [];
  try {
    for (const cc of COMPILERS) {
      // Static first: nothing then depends on what the sandbox shows of the system's libraries.
      for (const link of [['-static'], []]) {
        const said = await compile(cc, [...FLAGS, ...link, '-o', tmp, spec.source]);
        if (said === null) return install(tmp, spec.binary);
        tried.push(`${[cc, ...link].join(' ')}: ${said}`);
        // A compiler that is not there has no dynamic build either.
        if (said.startsWith('not found')) break;
      }
    }
  } finally {
    rmSync(tmp, { force: true });
  }
  throw new Error(
    `${named(spec.binary).what} could not be built, so ${named(spec.binary).instead}: ${tried.join('; ')}`,
  );
}

/** Puts the built `tmp` at `binary`, over whatever is there, and checks what it then finds. */
function install(tmp: string, binary: string): string {
  // The compiler's mode follows the umask, which may let the group write.
  chmodSync(tmp, 0o755);
  let doubt: string | null;
  try {
    renameSync(tmp, binary);
    doubt = distrust(binary);
  } catch (error) {
    doubt = `could not be put in place (${(error as Error).message})`;
  }
  if (doubt !== null) {
    throw new Error(`${named(binary).what} ${binary} ${doubt}, so ${named(binary).instead}`);
  }
  removeOthers(join(binary, '..'), binary);
  return binary;
}

const MISSING = 'is not there';

/**
 * Why the binary at `path` is not to be run (`null`: it is): anyone but this user able to
 * change it could run what they like in every node's sandbox.
 */
function distrust(path: string): string | null {
  let stat: Stats;
  try {
    stat = lstatSync(path);
  } catch {
    return MISSING;
  }
  if (!stat.isFile()) return 'is not a regular file';
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid) return `is owned by uid ${stat.uid}, not ${uid}`;
  if ((stat.mode & 0o022) !== 0) {
    return `is writable by its group or others (mode ${(stat.mode & 0o777).toString(8)})`;
  }
  return runnable(path) ? null : 'is not executable';
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
 * Binaries of other sources a day old (a sandbox still running one keeps its inode through its
 * bind), and what builders killed mid-build left.
 */
function removeOthers(dir: string, keep: string): void {
  const now = Date.now();
  // Of its own kind only: an executor's build leaves the launcher alone, and the other way round.
  const kind = `${basename(keep).replace(/-[0-9a-f]{16}$/, '')}-`;
  for (const name of readdirSync(dir)) {
    if (!name.startsWith(kind)) continue;
    const path = join(dir, name);
    try {
      const age = () => now - statSync(path).mtimeMs;
      if (
        BUILT.test(name)
          ? path !== keep && age() > STALE_BINARY_MS
          : LEFT.test(name) && age() > 2 * BUILD_TIMEOUT_MS
      ) {
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
