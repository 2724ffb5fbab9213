/**
 * A sandbox plan: everything a confined command needs decided before it runs, made by the daemon
 * (which knows scopes, settings and the home) and handed to whoever spawns the command (the
 * daemon for `POST /v1/bash`, a node's broker for its `bash` tool). Plain data, so it travels in
 * the broker's launch message.
 */
import { realpathSync } from 'node:fs';
import { isWithin, type Scope } from '@svc/protocol';
import type { SandboxHost } from './probe.ts';
import type { NetworkPolicy, SandboxMode, SandboxSettings } from './settings.ts';
import { type Layer, orderLayers, scopeLayers } from './view.ts';

export interface SandboxPlan {
  mode: SandboxMode;
  host: SandboxHost;
  /** The person's files as the command sees them, ordered (`orderLayers`), every path real. */
  layers: Layer[];
  network: NetworkPolicy;
  /** `HOME` inside: the node's worktree, or `/tmp` for a token's command. */
  home: string;
  pids: number;
  memoryBytes: number;
  /** Added to the command's environment: the values of its profile's `command_env` names. */
  env: Record<string, string>;
}

/**
 * Kernel interfaces a bind would replace with the host's own (`/proc` shows every process's
 * environment): a layer at one of them, or holding one (a scope on `/`), binds nothing.
 */
const KERNEL = ['/proc', '/sys', '/dev'];

export interface PlanInput {
  settings: SandboxSettings;
  host: SandboxHost;
  /** `SVC_HOME`: hidden whole, whatever a scope binds, but for `worktree` inside it. */
  svcHome: string;
  /** The caller's scope list; `null`: every scope (an owner's node), which gets the defaults. */
  scopes: readonly Scope[] | null;
  /** A node's worktree, bound read-write; none for a token's own command. */
  worktree?: string | undefined;
  /** More binds (a git worktree's common directory). */
  extra?: readonly Layer[] | undefined;
  network?: NetworkPolicy | undefined;
  env?: Record<string, string> | undefined;
}

export function makePlan(input: PlanInput): SandboxPlan {
  const { settings } = input;
  const binds: Layer[] = [
    ...(input.scopes === null ? settings.defaultLayers : scopeLayers(input.scopes)),
    ...(input.extra ?? []),
    ...(input.worktree === undefined ? [] : [{ path: input.worktree, kind: 'rw' as const }]),
  ];
  const hides: Layer[] = [input.svcHome, ...settings.hidden].map((path) => ({
    path,
    kind: 'hide' as const,
  }));
  const layers: Layer[] = [];
  for (const layer of [...binds, ...hides]) {
    const path = real(layer.path);
    if (path === null) continue; // nothing there to bind or to hide
    if (layer.kind !== 'hide' && KERNEL.some((k) => isWithin(path, k) || isWithin(k, path))) {
      continue;
    }
    layers.push({ ...layer, path });
  }
  // The worktree lies in the hidden home: it is bound again above the hide, deeper.
  return {
    mode: settings.mode,
    host: input.host,
    layers: orderLayers(layers),
    network: input.network ?? settings.network,
    home: input.worktree === undefined ? '/tmp' : (real(input.worktree) ?? input.worktree),
    pids: settings.pids,
    memoryBytes: settings.memoryBytes,
    env: input.env ?? {},
  };
}

function real(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}
