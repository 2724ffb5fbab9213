/**
 * An agent host's CPU priority. The daemon is on the critical path of every node's turn (its
 * record, its result, every event a viewer waits for); the hosts run the agents' loops and,
 * below them, their commands. Under contention the daemon's work should not queue behind theirs,
 * so a host may run at a higher niceness than the daemon. On a machine with spare CPU this
 * changes nothing: niceness only orders who runs first when something must wait.
 *
 * Two knobs, both set right after the spawn: the process's own niceness (inherited by its
 * sandboxes and commands), and, where the kernel groups processes by session (autogroup), the
 * niceness of the host's session, since a host is a session leader (spawned detached) and
 * autogroups share the CPU among sessions, not processes: without it the host's own niceness
 * would only order it among its own descendants.
 */
import { writeFileSync } from 'node:fs';
import { setPriority } from 'node:os';

/** Highest niceness Linux takes. */
export const MAX_NICENESS = 19;

/** `SVC_HOST_NICENESS`: 0 (off) to 19; undefined when not set. */
export function parseNiceness(text: string | undefined, name: string): number | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0 || n > MAX_NICENESS) {
    throw new TypeError(
      `${name} must be an integer from 0 to ${MAX_NICENESS}; received ${JSON.stringify(text)}`,
    );
  }
  return n;
}

/** Without CAP_SYS_ADMIN the kernel takes one autogroup change per 100 ms, machine-wide. */
const AUTOGROUP_RETRY_MS = 110;
const AUTOGROUP_TRIES = 10;

/**
 * Lowers `pid`'s priority to `niceness` (0: leaves it). Best effort: a host that exited already
 * or a kernel without autogroups still runs, only unordered. `missed` hears what could not be set.
 */
export function deprioritize(pid: number, niceness: number, missed: (why: string) => void): void {
  if (niceness === 0) return;
  try {
    setPriority(pid, niceness);
  } catch (error) {
    missed(`niceness: ${(error as Error).message}`);
  }
  setAutogroup(pid, niceness, AUTOGROUP_TRIES, missed);
}

function setAutogroup(pid: number, niceness: number, tries: number, missed: (why: string) => void) {
  try {
    writeFileSync(`/proc/${pid}/autogroup`, String(niceness));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // No file: no autogroups (or the host is gone), so the process's niceness is all there is.
    if (code === 'ENOENT' || code === 'ESRCH') return;
    if (code === 'EAGAIN' && tries > 1) {
      setTimeout(() => setAutogroup(pid, niceness, tries - 1, missed), AUTOGROUP_RETRY_MS).unref();
      return;
    }
    missed(`autogroup: ${(error as Error).message}`);
  }
}
