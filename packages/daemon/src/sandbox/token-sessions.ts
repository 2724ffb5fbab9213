/**
 * A token's sandbox, reused by its next commands (`POST /v1/bash` of a scoped token), as a
 * node's is by its (`./session.ts`): making one costs milliseconds a command need not pay each
 * time. One per token and plan (a share made or ended, or a hidden store appearing, makes
 * another), at most `MAX` at once (the least recently used goes), each ended after `IDLE_MS`
 * without a command: what a command left running in the background ends then, at the latest.
 */
import type { SandboxPlan } from './plan.ts';
import { openSession, type SandboxSession } from './session.ts';

const MAX = 8;
const IDLE_MS = 60_000;

interface Held {
  key: string;
  session: Promise<SandboxSession | null>;
  idle?: NodeJS.Timeout;
}

export function tokenSessions() {
  const held = new Map<string, Held>();

  function drop(entry: Held): void {
    clearTimeout(entry.idle);
    if (held.get(entry.key) === entry) held.delete(entry.key);
    void entry.session.then((s) => s?.close());
  }

  function idle(entry: Held): NodeJS.Timeout {
    const timer = setTimeout(() => drop(entry), IDLE_MS);
    timer.unref();
    return timer;
  }

  return {
    /** The sandbox of `tokenId`'s commands under `plan` (made on first use), or `null`. */
    async of(tokenId: string, plan: SandboxPlan): Promise<SandboxSession | null> {
      const key = `${tokenId}\n${JSON.stringify(plan)}`;
      let entry = held.get(key);
      if (entry !== undefined) {
        const session = await entry.session;
        if (session === null || session.stale()) {
          drop(entry);
          entry = undefined;
        }
      }
      if (entry === undefined) {
        for (const old of [...held.values()].slice(0, Math.max(0, held.size - MAX + 1))) drop(old);
        const made: Held = { key, session: Promise.resolve(null) };
        made.session = openSession(plan, () => {
          if (held.get(key) === made) drop(made);
        }).catch(() => null);
        held.set(key, made);
        entry = made;
      }
      // Most recently used last; its idle time starts again.
      held.delete(key);
      held.set(key, entry);
      clearTimeout(entry.idle);
      entry.idle = idle(entry);
      return entry.session;
    },

    /** Ends every token's sandbox (the daemon's close). */
    close(): void {
      for (const entry of [...held.values()]) drop(entry);
    },
  };
}
