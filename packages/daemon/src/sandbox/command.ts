/**
 * One confined command: the `bwrap` invocation a plan makes for it. Every bind is made from a
 * descriptor opened just before the start and checked to be the directory the plan named
 * (`--bind-fd`, descriptors.ts), so a directory swapped for a link between the plan and the
 * mount leads nowhere; the command's first process joins its control groups before `bwrap`
 * starts anything.
 */
import { closeSync, lstatSync, realpathSync } from 'node:fs';
import { posix } from 'node:path';
import { isWithin } from '@svc/protocol';
import { ApiError } from '../errors.ts';
import { type CommandGroups, makeGroups } from './cgroup.ts';
import { type Opened, openDescriptors } from './descriptors.ts';
import type { SandboxPlan } from './plan.ts';
import { unavailableMessage } from './probe.ts';
import { PROXY_ENV } from './proxy.ts';
import { seccompFile } from './seccomp.ts';
import { systemArgs } from './system.ts';
import { viewAllows } from './view.ts';

export interface SandboxedSpawn {
  file: string;
  args: string[];
  /** The environment of the launcher (`bwrap` clears it for the command). */
  env: Record<string, string>;
  /**
   * What bwrap inherits as fd 3, 4, …, opened by whoever starts it, just before: this process
   * (`open`), or a launcher of its own (launcher.ts), the same way (`openDescriptor`).
   */
  opens: Opened[];
  /** `opens` opened here, for this process's own spawn; throws when one cannot be (see `openDescriptor`). */
  open(): number[];
  /**
   * The same start for a launcher: bwrap's argv, and the control group files it joins before its
   * exec, where `file` is a shell that joins them.
   */
  direct: { argv: string[]; joins: string[] };
  /** After the command ended: its groups killed and removed. */
  done(): Promise<void>;
  /** Right after the spawn: what `open` opened is the child's now. */
  spawned(): void;
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
  const opens: Opened[] = [];
  const mounts: string[] = [];
  const remounts: string[] = [];
  const give = (opened: Opened) => String(opens.push(opened) + 2);
  const system = systemArgs(give, (path) =>
    plan.layers.some((l) => l.kind !== 'hide' && isWithin(l.path, path)),
  );
  for (const layer of plan.layers) {
    const kind = kindOf(layer.path);
    if (layer.kind === 'hide') {
      if (!shownByBind(plan, layer.path)) continue;
      if (kind === 'dir') {
        mounts.push('--tmpfs', layer.path);
        remounts.push('--remount-ro', layer.path);
      } else if (kind === 'file') {
        mounts.push('--ro-bind', '/dev/null', layer.path);
      }
      continue;
    }
    // Gone since the plan, or a link now: nothing to bind. Checked again as it is opened.
    if (kind === null || kind === 'link') continue;
    const at = give({ mode: 'p', path: layer.path });
    mounts.push(layer.kind === 'rw' ? '--bind-fd' : '--ro-bind-fd', at, layer.path);
  }
  for (const bind of run.extra ?? []) {
    mounts.push(bind.writable === true ? '--bind' : '--ro-bind', bind.source, bind.dest);
  }
  const filter = seccompFile();
  if (filter !== null) mounts.push('--seccomp', give({ mode: 'r', path: filter }));

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
      throw new ApiError(
        'sandbox_unavailable',
        `the command's control group could not be made: ${(error as Error).message}`,
      );
    }
  }
  const launcherEnv: Record<string, string> = { PATH: '/usr/bin:/bin', ...run.launcherEnv };
  const fds: number[] = [];
  const open = () => {
    fds.push(...openDescriptors(opens));
    return fds;
  };
  const closeFds = () => {
    for (const fd of fds.splice(0)) {
      try {
        closeSync(fd);
      } catch {
        // Closed already.
      }
    }
  };
  const direct = (joins: string[]) => ({ argv: [host.bwrap, ...bwrapArgs], joins });
  if (groups === null) {
    return {
      file: host.bwrap,
      args: bwrapArgs,
      env: launcherEnv,
      opens,
      open,
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
    opens,
    open,
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

function kindOf(path: string): 'dir' | 'file' | 'link' | null {
  try {
    // A missing path answers `undefined`, not a thrown error: most names asked about are absent
    // on a given system, and an error's stack cost more than the lstat.
    const info = lstatSync(path, { throwIfNoEntry: false });
    if (info === undefined) return null;
    return info.isDirectory() ? 'dir' : info.isSymbolicLink() ? 'link' : 'file';
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
