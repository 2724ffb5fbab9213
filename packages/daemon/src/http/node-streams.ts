/**
 * What node and run routes share: their event pages and SSE streams over the one event log
 * (filtered to a node, a subtree or a run's tree; the spine's `eventStream` does the streaming),
 * bounded long-polls, and list envelopes.
 */

import { isFinal, type NodeState } from '@svc/protocol';
import type { DaemonContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import { type EventDto, toEventDto } from '../services/events.ts';
import { waitUntil } from '../services/wait-until.ts';
import type { EventRow } from '../store/events.ts';
import type { EventSubjects } from '../store/node-events.ts';
import type { Call, Reply } from './call.ts';
import { lastEventId } from './events.ts';
import { eventStream, sseHeaders } from './sse.ts';
import { streamAlive } from './viewer-auth.ts';

export const DEFAULT_LIMIT = 50;
const DEFAULT_WAIT_S = 30;

interface EventsQuery {
  after?: number | undefined;
  kinds?: string | undefined;
  limit?: number | undefined;
  follow?: boolean | undefined;
}

/**
 * The rows as stored: a stream sends them as they are, a page as `EventDto`s. The watchers of
 * one node or run that a commit wakes read them once (`EventLog.shared`).
 */
function reader(ctx: DaemonContext, subjects: EventSubjects, kinds: string | undefined) {
  const list = kinds?.split(',');
  const of = `${JSON.stringify(subjects)} ${kinds ?? ''}`;
  return (after: number, limit: number): readonly EventRow[] =>
    ctx.events.shared(`nodes ${of} ${after} ${limit}`, () =>
      ctx.store.nodeEvents.page(subjects, after, limit, list),
    );
}

/** A page of events in seq order; `next_cursor` is the last seq of the page. */
export function eventsPage(ctx: DaemonContext, subjects: EventSubjects, query: EventsQuery) {
  const limit = query.limit ?? DEFAULT_LIMIT;
  const rows: EventDto[] = reader(
    ctx,
    subjects,
    query.kinds,
  )(query.after ?? 0, limit + 1).map(toEventDto);
  const data = rows.slice(0, limit);
  return {
    data,
    has_more: rows.length > limit,
    next_cursor: data.length === 0 ? null : String(data.at(-1)!.seq),
  };
}

/**
 * The events as SSE: backlog after `Last-Event-ID` (else `?after=`), then live; with
 * `?follow=false` the stream ends after the backlog. It ends too once its nodes are settled
 * (each final) and their events sent, as a watcher of a node or run expects of its outcome: a
 * request with nothing left to send then answers 204, which ends an SSE client for good (WHATWG
 * HTML §9.2.3), so `for await` over `nodes.stream` or `runs.stream` finishes.
 */
export function eventsResponse(
  c: Call,
  ctx: DaemonContext,
  subjects: EventSubjects,
  query: EventsQuery,
): Reply {
  const after = lastEventId(c.header('last-event-id')) ?? query.after ?? 0;
  const read = reader(ctx, subjects, query.kinds);
  const isSettled = () => settled(ctx, subjects);
  if (query.follow !== false && isSettled() && read(after, 1).length === 0) {
    return c.body(null, 204, {});
  }
  const stream = eventStream(ctx.events, ctx.sse, {
    after,
    kinds: undefined,
    keepaliveMs: ctx.sseKeepaliveMs,
    signal: c.signal,
    read,
    follow: query.follow !== false,
    alive: streamAlive(c, ctx.viewer, ctx.tokens),
    settled: isSettled,
  });
  return c.body(stream, 200, sseHeaders(ctx.sseKeepaliveMs));
}

/** Whether the streamed nodes are all final (or gone): nothing more comes of them on its own. */
function settled(ctx: DaemonContext, subjects: EventSubjects): boolean {
  const id =
    'node' in subjects ? subjects.node : 'run' in subjects ? subjects.root : subjects.subtree;
  const state = ctx.store.nodes.get(id)?.state;
  if (state !== undefined && !isFinal(state)) return false;
  if ('node' in subjects) return true;
  return ctx.store.nodes.descendants(id).every((n) => isFinal(n.state));
}

/**
 * Waits up to `timeoutS` (default 30) for `ready` to answer non-null, re-checking on every
 * committed event; ends early when the client goes away or the daemon shuts down.
 */
export async function longPoll<T>(
  c: Call,
  ctx: DaemonContext,
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
  ctx: DaemonContext,
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

/** `{data, has_more, next_cursor}` from `limit + 1` rows. */
export function page<T>(rows: T[], limit: number, cursorOf: (item: T) => string) {
  const data = rows.slice(0, limit);
  const hasMore = rows.length > limit;
  return { data, has_more: hasMore, next_cursor: hasMore ? cursorOf(data.at(-1)!) : null };
}

/** A numeric cursor (a seq, a row order) from `?after=`; 0 when absent. */
export function numericCursor(after: string | undefined): number {
  if (after === undefined) return 0;
  if (!/^\d{1,15}$/.test(after)) {
    throw new ApiError('invalid_request', 'after must be the next_cursor of the previous page', {
      field: 'after',
      received: after.slice(0, 64),
    });
  }
  return Number(after);
}
