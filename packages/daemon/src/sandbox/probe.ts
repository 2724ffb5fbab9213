/**
 * Whether this host can confine a command, found once at the daemon's start by making a real
 * sandbox (`bwrap … /bin/true`): a binary that exists may still be refused its namespaces
 * (user namespaces off, an AppArmor rule). The answer, with its cause and fix, is what
 * `GET /v1/status` shows and what a refused command says.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { accessSync, closeSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { type CgroupBase, detectCgroups, sweepGroups, sweepOthers } from './cgroup.ts';
import { type Opened, openDescriptors } from './descriptors.ts';
import { type NativeExecutor, nativeExecutorIn } from './executor-build.ts';
import { executorCacheDir } from './executor-cache.ts';
import { systemArgs } from './system.ts';

export interface SandboxHost {
  /** A confined command can be made here. */
  ready: boolean;
  /** `bwrap`'s path and version when found. */
  bwrap: string | null;
  version: string | null;
  /** Why it cannot, and what the person does about it; `null` when ready. */
  reason: string | null;
  fix: string | null;
  /** Where each command's processes and memory are bounded; `null`: not by a group. */
  cgroup: CgroupBase | null;
  /** `prlimit` for `RLIMIT_NPROC` inside the sandbox, where no group bounds processes. */
  prlimit: string | null;
  /**
   * The C executor of a node's sandbox, built on first need in the user's cache (else the
   * daemon's: executor-cache.ts); `null`: the Node executor (`SVC_SANDBOX_EXECUTOR=node`, or no
   * source to build from).
   */
  executor: NativeExecutor | null;
}

const INSTALL_FIX =
  "install bubblewrap (Debian/Ubuntu: 'apt-get install bubblewrap'; Fedora: 'dnf install bubblewrap'), or run 'bash scripts/ensure-sandbox.sh' in the svc checkout, then restart the daemon";

/** Looks for `bwrap` and tries it. `home` keys this daemon's command groups. */
export function probeSandbox(home: string): SandboxHost {
  // `SVC_BWRAP` names another build (one not on PATH); named but missing is no fall-back.
  const named = process.env.SVC_BWRAP;
  const bwrap = named === undefined || named === '' ? findOnPath('bwrap') : executable(named);
  const none = { bwrap, version: null, cgroup: null, prlimit: null, executor: null };
  if (bwrap === null) {
    return {
      ...none,
      ready: false,
      reason:
        named === undefined || named === ''
          ? 'bubblewrap (bwrap) is not installed'
          : `SVC_BWRAP names ${named}, which is no executable`,
      fix: INSTALL_FIX,
    };
  }
  const version = spawnSync(bwrap, ['--version'], { encoding: 'utf8', timeout: 5_000 });
  const opens: Opened[] = [];
  const system = systemArgs(
    (opened) => String(opens.push(opened) + 2),
    () => false,
  );
  const fds = openDescriptors(opens);
  const trial = spawnSync(
    bwrap,
    [
      '--unshare-all',
      '--die-with-parent',
      '--cap-drop',
      'ALL',
      ...system.mounts,
      ...system.remounts,
      '/bin/true',
    ],
    { encoding: 'utf8', timeout: 10_000, env: {}, stdio: ['ignore', 'pipe', 'pipe', ...fds] },
  );
  for (const fd of fds) closeSync(fd);
  if (trial.status !== 0) {
    const said = (trial.stderr || trial.error?.message || `exit ${trial.status}`).trim();
    return {
      ...none,
      version: version.stdout?.trim() ?? null,
      ready: false,
      reason: `bubblewrap cannot make a sandbox here: ${said}`,
      fix: namespacesFix(said),
    };
  }
  const key = createHash('sha256').update(home).digest('hex').slice(0, 16);
  const groups = detectCgroups(key);
  const cgroup = 'base' in groups ? groups.base : null;
  if (cgroup !== null) {
    void sweepGroups(cgroup);
    void sweepOthers(cgroup);
  }
  return {
    ready: true,
    bwrap,
    version: version.stdout?.trim() ?? null,
    reason: null,
    fix: null,
    cgroup,
    prlimit: cgroup === null && process.getuid?.() !== 0 ? findOnPath('prlimit') : null,
    executor:
      process.env.SVC_SANDBOX_EXECUTOR === 'node' ? null : nativeExecutorIn(executorCacheDir(home)),
  };
}

/** The fix for a refusal of namespaces, by what bwrap said. */
function namespacesFix(said: string): string {
  if (/apparmor|permission denied/i.test(said)) {
    return "allow unprivileged user namespaces for bwrap: an AppArmor profile for /usr/bin/bwrap with 'userns,', or 'sysctl -w kernel.apparmor_restrict_unprivileged_userns=0'; then restart the daemon";
  }
  return "enable unprivileged user namespaces ('sysctl -w kernel.unprivileged_userns_clone=1' and a non-zero user.max_user_namespaces); then restart the daemon";
}

/** The first executable `name` on `PATH` or in the usual system directories. */
function findOnPath(name: string): string | null {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/bin', '/bin', '/usr/local/bin'];
  for (const dir of dirs) {
    if (dir === '') continue;
    const found = executable(join(dir, name));
    if (found !== null) return found;
  }
  return null;
}

function executable(path: string): string | null {
  try {
    accessSync(path, constants.X_OK);
    return path;
  } catch {
    return null;
  }
}

/** What a refused command says: the cause, then the fix. */
export function unavailableMessage(host: SandboxHost): string {
  return `this command must run in a sandbox, and none can be made on this host: ${host.reason ?? 'unknown'}; fix: ${host.fix ?? INSTALL_FIX} (or start the daemon with '--sandbox off' to run such commands unconfined)`;
}
