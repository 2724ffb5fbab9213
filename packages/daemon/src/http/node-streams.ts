/**
 * What node and run routes share: their event pages and SSE streams over the one event log
 * (filtered to a node, a subtree or a run's tree; the spine's `eventStream` does the streaming).
 */

import { isFinal } from '@svc/protocol';
import { lastEventId } from '../events/last-event-id.ts';
import type { EventLog } from '../events/log.ts';
import { type EventDto, toEventDto } from '../events/log.ts';
import type { EventRouteDeps } from '../events/routes.ts';
import type { EventSubjects } from '../nodes/store/node-events.ts';
import type { EventRow } from '../store/events.ts';
import type { Store } from '../store/index.ts';
import type { Call, Reply } from './call.ts';
import { DEFAULT_LIMIT } from './page.ts';
import { eventStream, sseHeaders } from './sse.ts';
import { streamAlive } from './viewer-auth.ts';

/** What the event pages and streams read. */
export interface StreamDeps extends EventRouteDeps {
  store: Pick<Store, 'nodes' | 'nodeEvents'>;
  events: EventLog;
}

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
function reader(ctx: StreamDeps, subjects: EventSubjects, kinds: string | undefined) {
  const list = kinds?.split(',');
  const of = `${JSON.stringify(subjects)} ${kinds ?? ''}`;
  return (after: number, limit: number): readonly EventRow[] =>
    ctx.events.shared(`nodes ${of} ${after} ${limit}`, () =>
      ctx.store.nodeEvents.page(subjects, after, limit, list),
    );
}

/** A page of events in seq order; `next_cursor` is the last seq of the page. */
export function eventsPage(ctx: StreamDeps, subjects: EventSubjects, query: EventsQuery) {
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
  ctx: StreamDeps,
  subjects: EventSubjects,
  query: EventsQuery,
): Reply {
  const after = lastEventId(c.header('last-event-id')) ?? query.after ?? 0;
  const read = reader(ctx, subjects, query.kinds);
  const isSettled = () => settled(ctx, subjects);
  const drained = () => read(after, 1).length === 0 && !ctx.events.pending();
  if (query.follow !== false && isSettled() && drained()) {
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
function settled(ctx: StreamDeps, subjects: EventSubjects): boolean {
  const id =
    'node' in subjects ? subjects.node : 'run' in subjects ? subjects.root : subjects.subtree;
  // Asked after every commit while the stream is caught up: states only, no row parsed.
  const state = ctx.store.nodes.stateOf(id);
  if (state !== undefined && !isFinal(state)) return false;
  if ('node' in subjects) return true;
  return !ctx.store.nodes.openBelow(id);
}
