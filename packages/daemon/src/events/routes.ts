import { mount, type Routes } from '../http/route.ts';
import { type EventSource, eventStream, type SseRegistry, sseHeaders } from '../http/sse.ts';
import { streamAlive } from '../http/viewer-auth.ts';
import type { ViewerSessions } from '../ports.ts';
import type { TokenService } from '../tokens/service.ts';
import { lastEventId } from './last-event-id.ts';

/** What a stream of events reads and answers to: the log, the shutdown's registry, live checks. */
export interface EventRouteDeps {
  events: EventSource;
  sse: SseRegistry;
  sseKeepaliveMs: number;
  viewer: Pick<ViewerSessions, 'isLive'>;
  tokens: Pick<TokenService, 'stillLive'>;
}

/**
 * `GET /v1/events`: the event log as SSE. `Last-Event-ID` wins over `?after=`; `?kinds=` filters;
 * `?follow=false` ends the stream after the backlog instead of going on with live events.
 */
export function registerEventRoutes(app: Routes, deps: EventRouteDeps): void {
  mount(app, 'events.stream', (c, { query }) => {
    const stream = eventStream(deps.events, deps.sse, {
      after: lastEventId(c.header('last-event-id')) ?? query.after ?? 0,
      kinds: query.kinds?.split(','),
      keepaliveMs: deps.sseKeepaliveMs,
      signal: c.signal,
      follow: query.follow !== false,
      alive: streamAlive(c, deps.viewer, deps.tokens),
    });
    return c.body(stream, 200, sseHeaders(deps.sseKeepaliveMs));
  });
}
