/**
 * Gives the C library's free memory back to the system: `malloc_trim(0)`, by a Node-API addon of
 * one function (malloc-trim.c), run in a quiet spell after V8's own release (`heap-release.ts`).
 *
 * Why: glibc's free() returns memory to the system only from the top of a heap; a free chunk
 * below a live one stays resident. A burst of work leaves the allocator's heaps so: 1,000 nodes
 * run to their end left the daemon holding 11 MB more after its quiet spell, and 1,000 parked
 * ones 9.5 to 14 MB, of which V8's heap was 1.5 MB (`npm run bench:nodes`, its parked
 * footprint; the rest lay in glibc's heaps, in free chunks among live ones such as SQLite's page
 * cache, which filled as the database grew during the burst). `malloc_trim(0)` gives back every
 * whole free page wherever it lies: the 1,000 parked nodes then added 4 MB, and the daemon held
 * 11 MB less with none parked too. `MALLOC_ARENA_MAX` and the trim threshold (`spawn.ts`) do not
 * reach those pages.
 *
 * The addon is built on first need as the sandbox's programs are (`native-build.ts`), into the
 * same cache, and loaded only from there and only while this user alone may change it. Without a
 * compiler, or with a C library other than glibc, nothing is trimmed and nothing else changes.
 */
import { fileURLToPath } from 'node:url';
import { buildNative, type NativeKind, nativeIn } from './native-build.ts';

const SOURCE = fileURLToPath(new URL('./malloc-trim.c', import.meta.url));
const KIND: NativeKind = {
  what: "the allocator's trim (a Node-API addon)",
  instead: "what a burst of work leaves free in the C library's heaps stays resident",
  flags: ['-O2', '-std=gnu11', '-shared', '-fPIC'],
  links: [[]],
};

/** `malloc_trim(0)`: whether any memory was given back. */
export type MallocTrim = () => boolean;

/**
 * The trim, built into `cacheDir` unless a trusted build is there and loaded into this process;
 * `null` (why given to `log`) when it cannot be built or loaded.
 */
export async function loadMallocTrim(
  cacheDir: string,
  log?: (why: string) => void,
): Promise<MallocTrim | null> {
  const spec = nativeIn(cacheDir, SOURCE, 'malloc-trim', KIND);
  if (spec === null) return null;
  const file = await buildNative(spec, KIND, log);
  if (file === null) return null;
  const module = { exports: {} as unknown };
  try {
    process.dlopen(module, file);
  } catch (error) {
    log?.(
      `${KIND.what} ${file} could not be loaded, so ${KIND.instead}: ${(error as Error).message}`,
    );
    return null;
  }
  return typeof module.exports === 'function' ? (module.exports as MallocTrim) : null;
}

/**
 * A trim for quiet spells: its first call builds and loads the addon (meanwhile the process goes
 * on) and trims once it is loaded, each later call trims at once; a trim that cannot be had is
 * not tried again. `onTrim` hears whether each trim gave memory back.
 */
export function mallocTrimmer(
  cacheDir: () => string,
  log: (why: string) => void,
  onTrim: (released: boolean) => void = () => {},
): () => void {
  let loading: Promise<MallocTrim | null> | null = null;
  let trim: MallocTrim | null = null;
  return function trimMalloc() {
    if (trim !== null) return onTrim(trim());
    if (loading !== null) return;
    loading = Promise.resolve()
      .then(() => loadMallocTrim(cacheDir(), log))
      .catch((error: unknown) => {
        log(`${KIND.what} could not be had, so ${KIND.instead}: ${(error as Error).message}`);
        return null;
      })
      .then((loaded) => {
        trim = loaded;
        if (loaded !== null) onTrim(loaded());
        return loaded;
      });
  };
}
