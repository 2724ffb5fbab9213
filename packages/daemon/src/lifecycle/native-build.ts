/**
 * The daemon's small C programs and libraries (the sandbox's executor and launcher, the
 * allocator's trim), compiled on first need with the host's `cc` into the user's cache
 * (`sandbox/executor-cache.ts`: `~/.cache/svc`, else the daemon home's), as
 * `<cache>/<name>-<hash>`, `<hash>` covering the source (and the headers it includes), the flags and the architecture:
 * built once per change for every daemon of this user, atomically (a temporary name, then a
 * rename), so processes that race build the same file and every one finds a whole file. A file is
 * used only while it is a regular file this user owns that no group or other may write; one that
 * is not is built again over it, why logged. Where no compiler works, what needs it does without
 * (each kind says how, `NativeKind.instead`); why is logged once per process.
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

/** Where a source is, and where its build belongs (plain data: a sandbox plan carries it). */
export interface NativeSource {
  source: string;
  binary: string;
}

/** How one kind of file is built, and what a log line says of it. */
export interface NativeKind {
  /** What a log line calls it ("the sandbox's C executor"). */
  what: string;
  /** What runs in its stead when it cannot be built. */
  instead: string;
  /** The compiler's flags (in the hash). */
  flags: readonly string[];
  /** Ways to link, tried in order with each compiler (`-static`, then dynamic, say). */
  links: readonly (readonly string[])[];
}

const COMPILERS = ['cc', 'gcc'];
const BUILT = /^[a-z][a-z-]*-[0-9a-f]{16}$/;
const LEFT = /^[a-z][a-z-]*-[0-9a-f]{16}\.\d+-[0-9a-f]{8}\.tmp$/;
const BUILD_TIMEOUT_MS = 120_000;
/**
 * Another source's build is removed once this old: a daemon of another version sharing the
 * cache keeps its own meanwhile (and builds it again, should it need it after).
 */
const STALE_BINARY_MS = 24 * 60 * 60 * 1000;

/**
 * Where `source`'s build of `kind`, named `name`, is (or will be) in `cacheDir`; `null` when the
 * source or one of its `headers` (names beside it) cannot be read (an install without them).
 */
export function nativeIn(
  cacheDir: string,
  source: string,
  name: string,
  kind: NativeKind,
  headers: readonly string[] = [],
): NativeSource | null {
  const hash = createHash('sha256').update(
    `${process.platform}\0${process.arch}\0${kind.flags.join(' ')}\0`,
  );
  try {
    hash.update(readFileSync(source));
    for (const header of headers) hash.update(readFileSync(join(source, '..', header)));
  } catch {
    return null;
  }
  return { source, binary: join(cacheDir, `${name}-${hash.digest('hex').slice(0, 16)}`) };
}

const builds = new Map<string, Promise<string | null>>();

/**
 * The path of `spec`'s build, made now unless a trusted one is there; `null` (logged once) when
 * no compiler can build it. `log` takes what is logged.
 */
export async function buildNative(
  spec: NativeSource,
  kind: NativeKind,
  log: (why: string) => void = warn,
): Promise<string | null> {
  const found = await buildOnce(spec, kind, log);
  if (found === null || distrust(found) === null) return found;
  // Changed since this process built or checked it (removed, replaced): once more, checked.
  builds.delete(spec.binary);
  return buildOnce(spec, kind, log);
}

function buildOnce(
  spec: NativeSource,
  kind: NativeKind,
  log: (why: string) => void,
): Promise<string | null> {
  let build = builds.get(spec.binary);
  if (build === undefined) {
    build = ensure(spec, kind, log).catch((error: unknown) => {
      log((error as Error).message);
      return null;
    });
    builds.set(spec.binary, build);
  }
  return build;
}

async function ensure(
  spec: NativeSource,
  kind: NativeKind,
  log: (why: string) => void,
): Promise<string> {
  const doubt = distrust(spec.binary);
  if (doubt === null) return spec.binary;
  if (doubt !== MISSING) log(`${kind.what} ${spec.binary} ${doubt}, so it is built again`);
  const dir = join(spec.binary, '..');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tmp = `${spec.binary}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  const tried: string[] = [];
  try {
    for (const cc of COMPILERS) {
      for (const link of kind.links) {
        const said = await compile(cc, [...kind.flags, ...link, '-o', tmp, spec.source]);
        if (said === null) return install(tmp, spec.binary, kind);
        tried.push(`${[cc, ...link].join(' ')}: ${said}`);
        // A compiler that is not there has no other way to link either.
        if (said.startsWith('not found')) break;
      }
    }
  } finally {
    rmSync(tmp, { force: true });
  }
  throw new Error(`${kind.what} could not be built, so ${kind.instead}: ${tried.join('; ')}`);
}

/** Puts the built `tmp` at `binary`, over whatever is there, and checks what it then finds. */
function install(tmp: string, binary: string, kind: NativeKind): string {
  // The compiler's mode follows the umask, which may let the group write.
  chmodSync(tmp, 0o755);
  let doubt: string | null;
  try {
    renameSync(tmp, binary);
    doubt = distrust(binary);
  } catch (error) {
    doubt = `could not be put in place (${(error as Error).message})`;
  }
  if (doubt !== null) throw new Error(`${kind.what} ${binary} ${doubt}, so ${kind.instead}`);
  removeOthers(join(binary, '..'), binary);
  return binary;
}

const MISSING = 'is not there';

/**
 * Why the file at `path` is not to be run or loaded (`null`: it is): anyone but this user able
 * to change it could run what they like in every node's sandbox, or in the daemon.
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
 * Builds of other sources a day old (a sandbox still running one keeps its inode through its
 * bind), and what builders killed mid-build left.
 */
function removeOthers(dir: string, keep: string): void {
  const now = Date.now();
  // Of its own kind only: an executor's build leaves the launcher and the trim alone, and so on.
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
