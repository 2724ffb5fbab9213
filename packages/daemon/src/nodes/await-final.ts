/**
 * Bounded long-polls of the node and run routes (`nodes.waitForOutcome`, `runs.wait`, the
 * create-and-wait forms): until the node or run is final, the time is up, the client goes or the
 * daemon shuts down.
 */
import { isFinal, type NodeState } from '@svc/protocol';
import { ApiError } from '../errors.ts';
import type { EventLog } from '../events/log.ts';
import type { Call } from '../http/call.ts';
import type { SseRegistry } from '../http/sse.ts';
import { streamAlive } from '../http/viewer-auth.ts';
import type { ViewerSessions } from '../ports.ts';
import type { TokenService } from '../tokens/service.ts';
import { waitUntil } from './wait-until.ts';

const DEFAULT_WAIT_S = 30;

/** What a long-poll reads: the event log, the shutdown's registry and the token checks. */
export interface PollDeps {
  events: EventLog;
  sse: SseRegistry;
  viewer: Pick<ViewerSessions, 'isLive'>;
  tokens: Pick<TokenService, 'stillLive'>;
}

/**
 * Waits up to `timeoutS` (default 30) for `ready` to answer non-null, re-checking on every
 * committed event; ends early when the client goes away or the daemon shuts down.
 */
export async function longPoll<T>(
  c: Call,
  ctx: PollDeps,
  timeoutS: number | undefined,
  ready: () => T | null,
): Promise<T | null> {
  const shutdown = new AbortController();
  const unregister = ctx.sse.add(() => shutdown.abort());
  // A wait outlasts the request that checked its token, as a stream does: a token revoked or
  // expired meanwhile (a node token's node ended) gets no answer, only 401. A revocation is an
  // event, so it is seen at once.
  const alive = streamAlive(c, ctx.viewer, ctx.tokens);
  const stillHeld = () => {
    if (alive()) return;
    throw new ApiError('unauthorized', 'the token was revoked or expired while the request waited');
  };
  try {
    const signal = AbortSignal.any([c.signal, shutdown.signal]);
    const checked = () => {
      stillHeld();
      return ready();
    };
    const value = await waitUntil(ctx.events, checked, (timeoutS ?? DEFAULT_WAIT_S) * 1000, signal);
    stillHeld();
    return value;
  } finally {
    unregister();
  }
}

/**
 * Waits until `read()` answers something in a final state, or `timeoutS` passes (a `longPoll`);
 * answers what it read last and whether that is final.
 */
export async function awaitFinal<T extends { state: NodeState }>(
  c: Call,
  ctx: PollDeps,
  timeoutS: number | undefined,
  read: () => T,
): Promise<{ final: boolean; value: T }> {
  const done = await longPoll(c, ctx, timeoutS, () => {
    const value = read();
    return isFinal(value.state) ? value : null;
  });
  const value = done ?? read();
  return { final: isFinal(value.state), value };
}
