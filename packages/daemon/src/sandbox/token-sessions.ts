/**
 * A token's sandbox, reused by its next commands (`POST /v1/bash` of a scoped token), as a
 * node's is by its (`./session.ts`): making one costs milliseconds a command need not pay each
 * time. One per token and plan, at most `MAX` at once (the least recently used goes).
 *
 * A sandbox lives no longer than what it shows is the token's to see: what a command left
 * running in the background (`setsid … &`) would otherwise keep a revoked token's files, or an
 * ended share's, for as long as the sandbox lasted. So each is checked every `CHECK_MS` against
 * the token's plan as it is now (`current`: `null` once the token is revoked or expired; another
 * plan once a share was made, ended or expired), and ended when it no longer matches, or when no
 * command has run in it for `IDLE_MS`; a token's new plan ends its sandboxes under older ones at
 * once.
 */
import type { SandboxPlan } from './plan.ts';
import { openSession, type SandboxSession } from './session.ts';

const MAX = 8;
const IDLE_MS = 60_000;
const CHECK_MS = 1_000;

interface Held {
  key: string;
  tokenId: string;
  /** Its plan as JSON: what `current` must still give. */
  plan: string;
  session: Promise<SandboxSession | null>;
  current: () => SandboxPlan | null;
  /** Commands running in it: it is idle only when none is. */
  running: number;
  /** When its last command started or ended. */
  used: number;
}

export function tokenSessions(now: () => number = Date.now) {
  const held = new Map<string, Held>();
  let checker: NodeJS.Timeout | undefined;

  function drop(entry: Held): void {
    if (held.get(entry.key) === entry) held.delete(entry.key);
    void entry.session.then((s) => s?.close());
    if (held.size === 0) {
      clearInterval(checker);
      checker = undefined;
    }
  }

  function stillHolds(entry: Held): boolean {
    try {
      return JSON.stringify(entry.current()) === entry.plan;
    } catch {
      return false;
    }
  }

  function check(): void {
    const at = now();
    for (const entry of [...held.values()]) {
      const idle = entry.running === 0 && at - entry.used >= IDLE_MS;
      if (idle || !stillHolds(entry)) drop(entry);
    }
  }

  /** The session, each command counted while it runs (the idle time starts at its end). */
  function counted(entry: Held, session: SandboxSession): SandboxSession {
    return {
      ...session,
      async run(input, stop) {
        entry.running++;
        entry.used = now();
        try {
          return await session.run(input, stop);
        } finally {
          entry.running--;
          entry.used = now();
        }
      },
    };
  }

  return {
    /**
     * The sandbox of `tokenId`'s commands under `plan` (made on first use), or `null`. `current`
     * gives the token's plan as it is now, `null` once the token is revoked or expired.
     */
    async of(
      tokenId: string,
      plan: SandboxPlan,
      current: () => SandboxPlan | null,
    ): Promise<SandboxSession | null> {
      const json = JSON.stringify(plan);
      const key = `${tokenId}\n${json}`;
      let entry = held.get(key);
      if (entry !== undefined) {
        const session = await entry.session;
        if (session === null || session.stale()) {
          drop(entry);
          entry = undefined;
        }
      }
      if (entry === undefined) {
        // Its sandboxes under other plans show what it no longer has (a share ended, say).
        for (const old of [...held.values()]) if (old.tokenId === tokenId) drop(old);
        // Past the cap, the least recently used goes, an idle one before one running a command.
        const byUse = [...held.values()].sort(
          (a, b) => Number(a.running > 0) - Number(b.running > 0),
        );
        for (const old of byUse.slice(0, Math.max(0, held.size - MAX + 1))) drop(old);
        const made: Held = {
          key,
          tokenId,
          plan: json,
          session: Promise.resolve(null),
          current,
          running: 0,
          used: now(),
        };
        made.session = openSession(plan, () => {
          if (held.get(key) === made) drop(made);
        })
          .then((s) => counted(made, s))
          .catch(() => null);
        held.set(key, made);
        entry = made;
        checker ??= setInterval(check, CHECK_MS).unref();
      }
      // Most recently used last.
      held.delete(key);
      held.set(key, entry);
      entry.used = now();
      return entry.session;
    },

    /** Ends every token's sandbox (the daemon's close). */
    close(): void {
      for (const entry of [...held.values()]) drop(entry);
    },
  };
}
