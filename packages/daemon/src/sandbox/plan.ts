/**
 * A sandbox plan: everything a confined command needs decided before it runs, made by the daemon
 * (which knows scopes, settings and the home) and handed to whoever spawns the command (the
 * daemon for `POST /v1/bash`, a node's broker for its `bash` tool). Plain data, so it travels in
 * the broker's launch message.
 */
import { lstatSync, realpathSync } from 'node:fs';
import { posix } from 'node:path';
import { isWithin, type Scope } from '@svc/protocol';
import { privateTmp } from './private-tmp.ts';
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
  /** The caller's app, whose own app-form files scopes bind; `null`: none do. */
  appId?: string | null | undefined;
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
  // Hidden: svc's home and the secret stores, at their paths as written and as they resolve,
  // whether or not they exist yet (one made later is hidden from the next sandbox made).
  // This process's private directory too: its seccomp filter and sockets (`./private-tmp.ts`).
  const hidden = [input.svcHome, privateTmp(), ...settings.hidden].flatMap((path) => {
    const at = posix.normalize(path);
    const resolved = real(at);
    return resolved === null || resolved === at ? [at] : [at, resolved];
  });
  const inHidden = (path: string) => hidden.some((h) => isWithin(h, path));
  const layers: Layer[] = hidden.map((path) => ({ path, kind: 'hide' as const }));
  const bind = (layer: Layer, strict: boolean) => {
    const path = real(layer.path);
    if (path === null) return; // nothing there to bind
    // A scope names a directory, not where a link in its place leads: as the files routes
    // check a target's realpath against the scope, a scope whose directory is no longer itself
    // binds nothing.
    if (strict && path !== posix.normalize(layer.path)) return;
    // Never a bind inside what is hidden (a scope on the owner token, a link to a key).
    if (inHidden(path)) return;
    if (KERNEL.some((k) => isWithin(path, k) || isWithin(k, path))) return;
    layers.push({ ...layer, path });
  };
  const granted =
    input.scopes === null ? settings.defaultLayers : scopeLayers(input.scopes, input.appId ?? null);
  for (const layer of granted) {
    bind(layer, input.scopes !== null);
  }
  for (const layer of input.extra ?? []) bind(layer, false);
  // The node's own worktree lies in the hidden home, by design: bound above the hide, deeper.
  const worktree = input.worktree === undefined ? null : real(input.worktree);
  if (worktree !== null) layers.push({ path: worktree, kind: 'rw' });
  return {
    mode: settings.mode,
    host: input.host,
    layers: orderLayers([...layers, ...pins(layers)]),
    network: input.network ?? settings.network,
    home: worktree ?? (input.worktree === undefined ? '/tmp' : input.worktree),
    pids: settings.pids,
    memoryBytes: settings.memoryBytes,
    env: input.env ?? {},
  };
}

/**
 * Each directory between a read-write bind and a hide below it, bound again onto itself: a
 * mount point cannot be renamed, so a command cannot move a hidden store's parent aside
 * (`mv ~/.config ~/x`) and find it unhidden in the next sandbox.
 */
function pins(layers: readonly Layer[]): Layer[] {
  const out: Layer[] = [];
  for (const hide of layers) {
    if (hide.kind !== 'hide') continue;
    let holder: Layer | undefined;
    for (const l of layers) {
      if (l.kind === 'hide' || l.path === hide.path || !isWithin(l.path, hide.path)) continue;
      if (holder === undefined || l.path.length > holder.path.length) holder = l;
    }
    if (holder?.kind !== 'rw') continue;
    for (let dir = posix.dirname(hide.path); dir.length > holder.path.length; ) {
      if (real(dir) === dir) out.push({ path: dir, kind: 'rw' });
      dir = posix.dirname(dir);
    }
  }
  return out;
}

function real(path: string): string | null {
  try {
    // Most hidden stores are absent: asked first without a throw, as an error's stack cost more
    // than the lookups (a plan is made at every launch). libc's realpath gives Node's answer
    // (every link resolved) at about half its cost.
    if (lstatSync(path, { throwIfNoEntry: false }) === undefined) return null;
    return realpathSync.native(path);
  } catch {
    return null;
  }
}
