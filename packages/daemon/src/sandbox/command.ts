/**
 * One confined command: the `bwrap` invocation a plan makes for it. Every bind is made from a
 * descriptor opened here and checked to be the directory the plan named (`--bind-fd`), so a
 * directory swapped for a link between the plan and the mount leads nowhere; the command's first
 * process joins its control groups before `bwrap` starts anything.
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readlinkSync,
  realpathSync,
} from 'node:fs';
import { posix } from 'node:path';
import { isWithin } from '@svc/protocol';
import { ApiError } from '../errors.ts';
import { type CommandGroups, makeGroups } from './cgroup.ts';
import type { SandboxPlan } from './plan.ts';
import { unavailableMessage } from './probe.ts';
import { PROXY_ENV } from './proxy.ts';
import { seccompFd } from './seccomp.ts';
import { systemArgs } from './system.ts';
import { viewAllows } from './view.ts';

/** Linux `O_PATH` (the same on every architecture Node runs on): a handle, not an open for I/O. */
const O_PATH = 0o10000000;

export interface SandboxedSpawn {
  file: string;
  args: string[];
  /** The environment of the launcher (`bwrap` clears it for the command). */
  env: Record<string, string>;
  /** Descriptors the launcher inherits as fd 3, 4, … */
  fds: number[];
  /**
   * The same start for a launcher of its own (launcher.ts): bwrap's argv, what each of `fds` is
   * (opened again there: `p` a handle on the path itself, `r` for reading) and the control group
   * files it joins before its exec, where `file` is a shell that joins them.
   */
  direct: { argv: string[]; opens: Opened[]; joins: string[] };
  /** After the command ended: its groups killed and removed. */
  done(): Promise<void>;
  /** Right after the spawn: the descriptors are the child's now. */
  spawned(): void;
}

/** How a descriptor bwrap inherits was opened, so another process can open it the same way. */
export interface Opened {
  mode: 'p' | 'r';
  path: string;
}

let counter = 0;

/** Throws 503 `sandbox_unavailable` when this host cannot confine a command. */
export function assertConfinable(plan: SandboxPlan): asserts plan is SandboxPlan & {
  host: { bwrap: string };
} {
  if (!plan.host.ready || plan.host.bwrap === null) {
    throw new ApiError('sandbox_unavailable', unavailableMessage(plan.host));
  }
}

/**
 * Throws 400 when `cwd` is not in what the sandbox shows, before the host is asked whether it
 * exists: a confined caller learns nothing of what lies outside.
 */
export function assertVisible(plan: SandboxPlan, given: string): void {
  const cwd = posix.normalize(given);
  // The sandbox's own root and /tmp exist whatever it binds; the rest as its layers say, for
  // the path as written and where it leads (a link to a host path outside says nothing of it).
  if (cwd === '/' || cwd === '/tmp') return;
  let real: string | null = null;
  try {
    // libc's realpath: the same answer (every link resolved, a missing path throws) at half the
    // cost of Node's own walk, which lstats each component in JavaScript; this runs per command.
    real = realpathSync.native(cwd);
  } catch {
    // Missing: said as one with a path outside, so neither tells what exists.
  }
  if (
    real === null ||
    !viewAllows(plan.layers, cwd, 'read') ||
    !viewAllows(plan.layers, real, 'read')
  ) {
    throw new ApiError(
      'invalid_request',
      `cwd ${JSON.stringify(given)} is not a directory this command's sandbox shows (${shown(plan)})`,
      { field: 'cwd' },
    );
  }
}

/** A confined command's whole environment: the sandbox's minimal one, its profile's, `env`. */
export function commandEnv(
  plan: SandboxPlan,
  env: Record<string, string> | undefined,
  tag: { name: string; value: string } | undefined,
): Record<string, string> {
  return {
    PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
    HOME: plan.home,
    TMPDIR: '/tmp',
    LANG: process.env.LANG ?? 'C.UTF-8',
    TERM: 'dumb',
    SHELL: '/bin/sh',
    SVC_SANDBOX: 'bubblewrap',
    // A list of domains is reached through the node's proxy (`./proxy.ts`).
    ...(typeof plan.network === 'object' ? PROXY_ENV : {}),
    ...plan.env,
    ...(tag === undefined ? {} : { [tag.name]: tag.value }),
    ...env,
  };
}

/**
 * The spawn of `command` in `cwd` under `plan`, with `env` added to the sandbox's own minimal
 * environment. Throws `ApiError`: `sandbox_unavailable` (503) when the host cannot confine,
 * `invalid_request` when `cwd` is outside what the sandbox shows.
 */
export function sandboxedSpawn(
  plan: SandboxPlan,
  input: { command: string; cwd: string; env?: Record<string, string> | undefined },
  tag?: { name: string; value: string },
): SandboxedSpawn {
  assertConfinable(plan);
  assertVisible(plan, input.cwd);
  return bwrapSpawn(plan, {
    argv: shellArgv(plan, input.command),
    cwd: input.cwd,
    env: commandEnv(plan, input.env, tag),
    launcherEnv: tag === undefined ? {} : { [tag.name]: tag.value },
    group: `${process.pid}-${++counter}`,
  });
}

/** `/bin/sh -c command`, under `prlimit` where processes are bounded by `RLIMIT_NPROC`. */
export function shellArgv(plan: SandboxPlan, command: string): string[] {
  return plan.host.prlimit === null
    ? ['/bin/sh', '-c', command]
    : [plan.host.prlimit, `--nproc=${plan.pids}`, '--', '/bin/sh', '-c', command];
}

/**
 * `bwrap` running `argv` under `plan`: its binds from checked descriptors, its environment
 * exactly `env`, joined to control groups named `group` where the host has them. `extra` binds
 * more, read-only (the session's executor).
 */
export function bwrapSpawn(
  plan: SandboxPlan,
  run: {
    argv: string[];
    cwd: string;
    env: Record<string, string>;
    launcherEnv: Record<string, string>;
    group: string;
    extra?: { source: string; dest: string; writable?: boolean }[];
  },
): SandboxedSpawn {
  assertConfinable(plan);
  const { host } = plan;
  const fds: number[] = [];
  const opens: Opened[] = [];
  const mounts: string[] = [];
  const remounts: string[] = [];
  const give = (fd: number, opened: Opened) => {
    fds.push(fd);
    opens.push(opened);
    return String(fds.length + 2);
  };
  let system: { mounts: string[]; remounts: string[] };
  try {
    system = systemArgs(give, (path) =>
      plan.layers.some((l) => l.kind !== 'hide' && isWithin(l.path, path)),
    );
    for (const layer of plan.layers) {
      if (layer.kind === 'hide') {
        if (!shownByBind(plan, layer.path)) continue;
        const kind = kindOf(layer.path);
        if (kind === 'dir') {
          mounts.push('--tmpfs', layer.path);
          remounts.push('--remount-ro', layer.path);
        } else if (kind === 'file') {
          mounts.push('--ro-bind', '/dev/null', layer.path);
        }
        continue;
      }
      const fd = openPath(layer.path);
      if (fd === null) continue;
      const at = give(fd, { mode: 'p', path: layer.path });
      mounts.push(layer.kind === 'rw' ? '--bind-fd' : '--ro-bind-fd', at, layer.path);
    }
  } catch (error) {
    for (const fd of fds) closeSync(fd);
    throw error;
  }
  for (const bind of run.extra ?? []) {
    mounts.push(bind.writable === true ? '--bind' : '--ro-bind', bind.source, bind.dest);
  }
  const filter = seccompFd();
  if (filter !== null) mounts.push('--seccomp', give(filter.fd, { mode: 'r', path: filter.path }));

  const setenv = Object.entries(run.env).flatMap(([k, v]) => ['--setenv', k, v]);
  const bwrapArgs = [
    '--unshare-all',
    ...(plan.network === 'host' ? ['--share-net'] : []),
    '--die-with-parent',
    '--new-session',
    '--cap-drop',
    'ALL',
    '--clearenv',
    ...setenv,
    ...system.mounts,
    ...mounts,
    ...system.remounts,
    ...remounts,
    '--chdir',
    run.cwd,
    '--',
    ...run.argv,
  ];

  let groups: CommandGroups | null = null;
  if (host.cgroup !== null) {
    try {
      groups = makeGroups(host.cgroup, run.group, plan);
    } catch (error) {
      for (const fd of fds) closeSync(fd);
      throw new ApiError(
        'sandbox_unavailable',
        `the command's control group could not be made: ${(error as Error).message}`,
      );
    }
  }
  const launcherEnv: Record<string, string> = { PATH: '/usr/bin:/bin', ...run.launcherEnv };
  const closeFds = () => {
    for (const fd of fds.splice(0)) {
      try {
        closeSync(fd);
      } catch {
        // Closed already.
      }
    }
  };
  const direct = (joins: string[]) => ({ argv: [host.bwrap, ...bwrapArgs], opens, joins });
  if (groups === null) {
    return {
      file: host.bwrap,
      args: bwrapArgs,
      env: launcherEnv,
      fds,
      direct: direct([]),
      spawned: closeFds,
      done: async () => closeFds(),
    };
  }
  // The shell joins the groups, then becomes bwrap: nothing of the command runs outside them.
  // It writes `0`, itself (`CommandGroups.join`), not its pid: in v1 a pid takes the slow lock.
  const made = groups;
  return {
    file: '/bin/sh',
    // The group files as arguments (a count, then them), so the environment the sandbox's
    // first process inherits holds nothing of the host's groups.
    args: [
      '-c',
      'n=$1; shift; while [ "$n" -gt 0 ]; do echo 0 > "$1" || exit 125; shift; n=$((n-1)); done; exec "$@"',
      'svc-sandbox',
      String(made.join.length),
      ...made.join,
      host.bwrap,
      ...bwrapArgs,
    ],
    env: launcherEnv,
    fds,
    direct: direct(made.join),
    spawned: closeFds,
    done: async () => {
      closeFds();
      await made.remove();
    },
  };
}

/**
 * Whether a bind of `plan` shows `path` (a hide's): only what a shallower bind shows needs hiding;
 * elsewhere the path is absent from the sandbox whether it exists or not.
 */
export function shownByBind(plan: SandboxPlan, path: string): boolean {
  return plan.layers.some((l) => l.kind !== 'hide' && l.path !== path && isWithin(l.path, path));
}

/** A handle on `path` that is `path` itself (no link followed on the way), or `null`. */
function openPath(path: string): number | null {
  let fd: number;
  try {
    fd = openSync(path, O_PATH | constants.O_NOFOLLOW);
  } catch {
    return null; // gone since the plan: nothing to bind
  }
  try {
    // O_NOFOLLOW with O_PATH opens a link itself rather than failing: refused here.
    if (!fstatSync(fd).isSymbolicLink() && readlinkSync(`/proc/self/fd/${fd}`) === path) {
      return fd;
    }
  } catch {
    // Cannot be named back: refused below.
  }
  closeSync(fd);
  return null;
}

function kindOf(path: string): 'dir' | 'file' | null {
  try {
    const info = lstatSync(path);
    return info.isDirectory() ? 'dir' : 'file';
  } catch {
    return null;
  }
}

function shown(plan: SandboxPlan): string {
  const binds = plan.layers.filter((l) => l.kind !== 'hide').map((l) => `${l.path} (${l.kind})`);
  return binds.length === 0
    ? 'only the system and /tmp'
    : `${binds.join(', ')}, the system and /tmp`;
}
