import { useEffect, useState } from 'preact/hooks';
import { api } from './api.ts';
import type { SvcEvent } from './types.ts';

/** What a view refreshes when it changes. */
export type Topic = 'nodes' | 'inbox' | 'crons' | 'plugins';

const KINDS: Readonly<Record<string, Topic>> = {
  'node.state': 'nodes',
  'node.updated': 'nodes',
  'node.turn': 'nodes',
  'node.tool': 'nodes',
  'node.outcome': 'nodes',
  'node.report': 'nodes',
  'node.fault': 'nodes',
  'node.mail': 'nodes',
  'node.job': 'nodes',
  'human.request': 'inbox',
  'cron.created': 'crons',
  'cron.paused': 'crons',
  'cron.resumed': 'crons',
  'cron.deleted': 'crons',
  'cron.fired': 'crons',
  'cron.skipped': 'crons',
  'cron.rescheduled': 'crons',
  'plugin.installed': 'plugins',
  'plugin.updated': 'plugins',
  'plugin.removed': 'plugins',
};

export type Versions = Readonly<Record<Topic, number>> & { connected: boolean; lastSeq: number };

/** A burst of events (a turn and its tools, the backlog on connect) is one refresh. */
const SETTLE_MS = 150;

/**
 * Follows `GET /v1/events` (the kinds the views show) with an `EventSource`, which resumes after
 * the last seq it saw (`Last-Event-ID`) on its own whenever the connection drops. Each event
 * bumps the version of its topic; views refetch when their version moves.
 *
 * It starts at the event log's present (`canvas.snapshot`'s seq), not its beginning: the views
 * load the current state themselves, so replaying the whole history on each page load would only
 * cost time. Once the stream is open every view refetches once, so nothing between its first load
 * and that seq is missed.
 */
export function useLiveEvents(): Versions {
  const [versions, setVersions] = useState<Versions>({
    nodes: 0,
    inbox: 0,
    crons: 0,
    plugins: 0,
    connected: false,
    lastSeq: 0,
  });
  useEffect(() => {
    let source: EventSource | undefined;
    let closed = false;
    const dirty = new Set<Topic>();
    let lastSeq = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const flush = () => {
      timer = undefined;
      const topics = [...dirty];
      dirty.clear();
      setVersions((v) => {
        const next = { ...v, lastSeq };
        for (const topic of topics) next[topic] = v[topic] + 1;
        return next;
      });
    };
    const onEvent = (message: MessageEvent<string>) => {
      const event = JSON.parse(message.data) as SvcEvent;
      lastSeq = event.seq;
      const topic = KINDS[event.kind];
      if (topic !== undefined) dirty.add(topic);
      timer ??= setTimeout(flush, SETTLE_MS);
    };
    const follow = (after: number) => {
      if (closed) return;
      lastSeq = after;
      // Same origin: the session cookie goes along without `withCredentials`.
      const kinds = Object.keys(KINDS).join(',');
      source = new EventSource(`/v1/events?kinds=${kinds}&after=${after}`);
      for (const kind of Object.keys(KINDS)) source.addEventListener(kind, onEvent);
      let first = true;
      source.onopen = () => {
        setVersions((v) =>
          first
            ? {
                ...v,
                connected: true,
                lastSeq,
                nodes: v.nodes + 1,
                inbox: v.inbox + 1,
                crons: v.crons + 1,
                plugins: v.plugins + 1,
              }
            : { ...v, connected: true },
        );
        first = false;
      };
      source.onerror = () => setVersions((v) => ({ ...v, connected: false }));
    };
    api<{ seq: number }>('GET', '/v1/canvas/snapshot?limit=1').then(
      (snapshot) => follow(snapshot.seq),
      // The snapshot failed (the session ended, the daemon went away): follow from the start,
      // as before the snapshot existed; the stream's own 401 or reconnects take it from there.
      () => follow(0),
    );
    return () => {
      closed = true;
      source?.close();
      if (timer !== undefined) clearTimeout(timer);
    };
  }, []);
  return versions;
}
