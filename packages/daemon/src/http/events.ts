import type { DaemonContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import { mount, type Routes } from './route.ts';
import { eventStream, sseHeaders } from './sse.ts';
import { streamAlive } from './viewer-auth.ts';

/**
 * `GET /v1/events`: the event log as SSE. `Last-Event-ID` (what an EventSource sends when it
 * reconnects) wins over `?after=`; `?kinds=` filters; `?follow=false` ends the stream after the
 * backlog instead of going on with live events.
 */
export function registerEvents(app: Routes, ctx: DaemonContext): void {
  mount(app, 'events.stream', (c, { query }) => {
    const stream = eventStream(ctx.events, ctx.sse, {
      after: lastEventId(c.header('last-event-id')) ?? query.after ?? 0,
      kinds: query.kinds?.split(','),
      keepaliveMs: ctx.sseKeepaliveMs,
      signal: c.signal,
      follow: query.follow !== false,
      alive: streamAlive(c, ctx.viewer, ctx.tokens),
    });
    return c.body(stream, 200, sseHeaders(ctx.sseKeepaliveMs));
  });
}

/** The seq in `Last-Event-ID`, or `undefined` when absent (400 when it is not a seq). */
export function lastEventId(header: string | undefined): number | undefined {
  if (header === undefined || header === '') return undefined;
  if (!/^\d{1,15}$/.test(header)) {
    throw new ApiError(
      'invalid_request',
      'Last-Event-ID must be an event seq (a non-negative integer)',
      {
        field: 'Last-Event-ID',
        received: header.slice(0, 64),
      },
    );
  }
  return Number(header);
}
