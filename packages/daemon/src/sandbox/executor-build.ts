/**
 * The C executor of a node's sandbox (executor.c), built on first need by the daemon's native
 * build (`../lifecycle/native-build.ts`: the user's cache, atomically, trusted only while this
 * user alone may change it) as `<cache>/sandbox-executor-<hash>`, `<hash>` covering the source
 * and native-common.h, the header it shares with the launcher. Static where the C library allows
 * it, else dynamic (the sandbox binds the system read-only, so the library is there). Where no
 * compiler works, sessions run the Node executor instead: as confined, only heavier.
 *
 * The agent host's sandbox launcher (launcher.c) is built the same way, beside it, as
 * `<cache>/sandbox-launcher-<hash>`; without it a host spawns its sandboxes itself.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  buildNative,
  type NativeKind,
  type NativeSource,
  nativeIn,
} from '../lifecycle/native-build.ts';

/** Where the daemon's plan says the source is and its binary belongs (the plan's `host`). */
export type NativeExecutor = NativeSource;

const SOURCE = fileURLToPath(new URL('./executor.c', import.meta.url));
/** Static first: nothing then depends on what the sandbox shows of the system's libraries. */
const PROGRAM = { flags: ['-O2', '-std=gnu11'], links: [['-static'], []] } as const;
const EXECUTOR: NativeKind = {
  ...PROGRAM,
  what: "the sandbox's C executor",
  instead: 'node sandboxes run the Node executor (as confined, about 40 MB more each)',
};
const LAUNCHER: NativeKind = {
  ...PROGRAM,
  what: "the sandboxes' C launcher",
  instead: 'agent hosts start their sandboxes themselves',
};
/** The header both programs include (`#include "native-common.h"`, beside them). */
const HEADERS = ['native-common.h'];

/**
 * Where this daemon's executor is (or will be) in `cacheDir`; `null` when its source cannot be
 * read (an install without it): sessions then run the Node executor.
 */
export function nativeExecutorIn(cacheDir: string): NativeExecutor | null {
  return nativeIn(cacheDir, SOURCE, 'sandbox-executor', EXECUTOR, HEADERS);
}

/** The sandbox launcher's build beside `executor`'s (same cache, its own source and hash). */
export function nativeLauncherOf(executor: NativeExecutor): NativeExecutor | null {
  const source = join(executor.source, '..', 'launcher.c');
  return nativeIn(join(executor.binary, '..'), source, 'sandbox-launcher', LAUNCHER, HEADERS);
}

/**
 * The path of `spec`'s binary (the executor's or the launcher's), built now unless a trusted one
 * is there; `null` (logged once) when no compiler can build it. `log` takes what is logged.
 */
export function nativeExecutor(
  spec: NativeExecutor,
  log?: (why: string) => void,
): Promise<string | null> {
  const kind = spec.binary.includes('sandbox-launcher-') ? LAUNCHER : EXECUTOR;
  return buildNative(spec, kind, log);
}
