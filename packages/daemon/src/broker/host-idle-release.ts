/**
 * An agent host left with no node gives back what its nodes' work left resident, once it has
 * stayed so for a while (`HOST_RELEASE_QUIET_MS`).
 *
 * Why: V8 keeps the pages a burst freed pooled and resident (a busy host's young generation grows
 * to tens of MB). A host holds them while it waits for its next node, and each sandbox it then
 * forks copies their page tables. One last-resort collection (`../lifecycle/heap-release.ts`)
 * returns them: a host's anonymous memory fell from 73 to 57 MB (83 to 59 without the semi-space
 * cap of `../supervisor/agent-host.ts`). Never while a node runs here: a full collection would
 * stall that node's loop.
 */
import { heapRelease } from '../lifecycle/heap-release.ts';

/**
 * As the daemon's own (`HEAP_RELEASE_QUIET_MS`): past the gap between one node's end and the next
 * launch on a busy daemon, so a host that takes node after node never pays it (a last-resort
 * collection took 70–200 ms of CPU under load); short of the lull after which a spare host exits
 * (30 s).
 */
export const HOST_RELEASE_QUIET_MS = 5_000;

export interface HostIdleRelease {
  /** The host's last node ended: the quiet spell starts (again). */
  idle(): void;
  /** No release from now on (the host is closing). */
  close(): void;
}

export interface HostIdleReleaseOptions {
  /** True while the host holds a node: the release is skipped then. */
  busy: () => boolean;
  quietMs?: number;
  /** The release itself; default a last-resort collection. */
  collect?: () => void;
  /** After each release, with how long it took (ms). */
  onRelease?: (ms: number) => void;
}

export function hostIdleRelease(options: HostIdleReleaseOptions): HostIdleRelease {
  // A node launched during the spell: its own end starts the next one.
  const release = heapRelease({ ...options, quietMs: options.quietMs ?? HOST_RELEASE_QUIET_MS });
  return { idle: release.touch, close: release.close };
}
