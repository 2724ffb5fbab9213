/**
 * The daemon's side of confinement: what this host can do (probed once), the person's settings,
 * and the plan of each caller — a token with a scope list for `POST /v1/bash`, a node for every
 * command it runs (its broker's `bash` tool, or its token on `POST /v1/bash`).
 */
import type { Scope } from '@svc/protocol';
import type { NodeRow } from '../nodes/store/nodes.ts';
import { worktreeMounts } from '../worktrees/git-worktree.ts';
import { worktreePath } from '../worktrees/worktrees.ts';
import { removeBase, sweepGroups } from './cgroup.ts';
import { makePlan, type SandboxPlan } from './plan.ts';
import { probeSandbox, type SandboxHost } from './probe.ts';
import type { SandboxSession } from './session.ts';
import type { NetworkPolicy, SandboxSettings } from './settings.ts';
import { tokenSessions } from './token-sessions.ts';

export interface SandboxStatus {
  mode: 'on' | 'off';
  ready: boolean;
  tool: string | null;
  reason: string | null;
  fix: string | null;
  network: NetworkPolicy;
  limits: { pids: number | null; memory_bytes: number | null; by: 'cgroup' | 'rlimit' | null };
}

/** What of a node's row its plan reads: its id, its scope list (JSON text; null = all), its profile. */
export type NodeSandboxInput = Pick<
  NodeRow,
  'id' | 'scopes' | 'profile' | 'workspace' | 'network' | 'app_id'
>;

/** What a node's plan reads of its profile (the profiles service is one). */
export interface SandboxProfiles {
  /**
   * Its nodes' network (`null`: the daemon's default), the names of the env values their
   * commands get, and whose it is (`null`: the owner's); `null` once the profile was removed.
   */
  find(name: string): {
    name: string;
    network: NetworkPolicy | null;
    command_env: string[];
    app_id: string | null;
  } | null;
  /** The values of its env store. */
  envValues(name: string): Record<string, string>;
}

export function sandboxService(deps: {
  home: string;
  settings: SandboxSettings;
  profiles: SandboxProfiles;
}) {
  const { home, settings, profiles } = deps;
  // Probed at start even when off: `svc status` then says whether turning it on would work.
  const host: SandboxHost = probeSandbox(home);
  const tokens = tokenSessions();

  return {
    host,
    settings,

    /** The sandbox a token's commands share while it uses it (`./token-sessions.ts`). */
    tokenSession(
      tokenId: string,
      plan: SandboxPlan,
      current: () => SandboxPlan | null,
    ): Promise<SandboxSession | null> {
      return tokens.of(tokenId, plan, current);
    },

    /** The plan of a token's own command (`POST /v1/bash`): its files scopes, no worktree. */
    forToken(scopes: readonly Scope[], appId: string | null): SandboxPlan {
      return makePlan({ settings, host, svcHome: home, scopes, appId });
    },

    /** The plan of every command of node `node`: its scopes (or the defaults), its worktree. */
    forNode(node: NodeSandboxInput): SandboxPlan {
      const profile = profiles.find(node.profile);
      // The env store holds the person's secrets for that profile's own: an app's node naming
      // the owner's profile (or another app's) gets its prompt and tools, not its keys.
      const entitled = profile !== null && (node.app_id === null || profile.app_id === node.app_id);
      const stored = entitled ? profiles.envValues(profile.name) : {};
      const env = Object.fromEntries(
        (profile?.command_env ?? []).flatMap((name) =>
          stored[name] === undefined ? [] : [[name, stored[name]] as const],
        ),
      );
      return makePlan({
        settings,
        host,
        svcHome: home,
        scopes: node.scopes as Scope[] | null,
        appId: node.app_id,
        worktree: worktreePath(home, node.id),
        // A git worktree's repository: its common git directory, as recorded at create.
        extra: worktreeMounts({
          workspace: node.workspace,
        }).map((m) => ({ path: m.path, kind: m.writable ? ('rw' as const) : ('ro' as const) })),
        // Its row's (its create's; for a node the owner's token did not make, its profile's as
        // capped then), else its profile's as it is now, else the daemon's default.
        network: node.network ?? profile?.network ?? undefined,
        env,
      });
    },

    /**
     * The plan of a git call on a node's repository (`../bash/git-runner.ts`): no scope, so none
     * of the person's files but the repository's common git directory and the node's worktree
     * (read-write, as in the node's own sandbox), and no network.
     */
    forGit(repository: string, worktree: string | undefined): SandboxPlan {
      return makePlan({
        settings,
        host,
        svcHome: home,
        scopes: [],
        worktree,
        extra: [{ path: repository, kind: 'rw' }],
        network: 'none',
      });
    },

    /** At the daemon's close: its control groups go (its brokers are gone by then). */
    close(): Promise<void> {
      tokens.close();
      return host.cgroup === null ? Promise.resolve() : removeBase(host.cgroup);
    },

    /** Removes the control groups broker `pid` made for its node's sandbox and commands. */
    brokerGone(pid: number): void {
      if (host.cgroup !== null) void sweepGroups(host.cgroup, `${pid}-`);
    },

    status(): SandboxStatus {
      const by = host.cgroup !== null ? 'cgroup' : host.prlimit !== null ? 'rlimit' : null;
      return {
        mode: settings.mode,
        ready: host.ready,
        tool: host.ready ? host.version : null,
        reason:
          settings.mode === 'off'
            ? 'started with --sandbox off: commands of nodes and scoped tokens run unconfined'
            : host.reason,
        fix: settings.mode === 'off' ? 'restart the daemon without --sandbox off' : host.fix,
        network: settings.network,
        limits: {
          pids: by === null ? null : settings.pids,
          memory_bytes: host.cgroup?.memory != null ? settings.memoryBytes : null,
          by,
        },
      };
    },
  };
}

export type SandboxService = ReturnType<typeof sandboxService>;
