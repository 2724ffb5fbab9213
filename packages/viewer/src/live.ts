import { AuthenticationError, Svc } from '@svc/client';
import { useEffect, useState } from 'preact/hooks';
import { api, sessionEnded, viewerHeaders } from './api.ts';

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
  // Trees that left the record: the canvas drops them.
  'canvas.pruned': 'nodes',
  'run.deleted': 'nodes',
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
/** The wait before following again once the client's own reconnects gave up (daemon down). */
const RETRY_MS = 3_000;

/**
 * Follows `GET /v1/events` (the kinds the views show) with `@svc/client`'s stream, which resumes
 * after the last seq it saw (`Last-Event-ID`) whenever the connection drops. It is a fetch, not
 * an `EventSource`, for two reasons: every request carries the session's page key as a header,
 * which an `EventSource` cannot send, and a fetch sees the status, so a session that ended (401)
 * shows as such instead of as a stream forever reconnecting. Each event bumps the version of its
 * topic; views refetch when their version moves.
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
    const stop = new AbortController();
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
    // Every (re)connection refetches every view once: a view whose load failed while the daemon
    // was away recovers, and what changed meanwhile shows.
    let up = false;
    const connected = (ok: boolean) => {
      const back = ok && !up;
      up = ok;
      setVersions((v) =>
        back
          ? {
              ...v,
              connected: true,
              lastSeq,
              nodes: v.nodes + 1,
              inbox: v.inbox + 1,
              crons: v.crons + 1,
              plugins: v.plugins + 1,
            }
          : v.connected === ok
            ? v
            : { ...v, connected: ok },
      );
    };
    // The page key is read per request: a login in another tab replaces it (and the cookie).
    const client = new Svc({
      baseUrl: location.origin,
      fetch: (url, init) => {
        const headers = new Headers(init.headers);
        for (const [name, value] of Object.entries(viewerHeaders())) headers.set(name, value);
        return fetch(url, { ...init, headers, credentials: 'same-origin' }).then(
          (res) => {
            connected(res.ok);
            return res;
          },
          (error: unknown) => {
            connected(false);
            throw error;
          },
        );
      },
    });
    const kinds = Object.keys(KINDS);
    const follow = async (after: number) => {
      lastSeq = after;
      while (!stop.signal.aborted) {
        try {
          const stream = client.events.stream({ kinds }, { after: lastSeq, signal: stop.signal });
          for await (const event of stream) {
            lastSeq = event.seq;
            const topic = KINDS[event.kind];
            if (topic !== undefined) dirty.add(topic);
            timer ??= setTimeout(flush, SETTLE_MS);
          }
        } catch (error) {
          if (stop.signal.aborted) return;
          if (error instanceof AuthenticationError) return sessionEnded();
        }
        // Out of reconnects, or ended by the daemon (a drain): a pause, then follow on.
        connected(false);
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      }
    };
    api<{ seq: number }>('GET', '/v1/canvas/snapshot?limit=1').then(
      (snapshot) => follow(snapshot.seq),
      // The snapshot failed (the session ended, the daemon went away): follow from the start,
      // as before the snapshot existed; the stream's own 401 or reconnects take it from there.
      () => follow(0),
    );
    return () => {
      stop.abort();
      if (timer !== undefined) clearTimeout(timer);
    };
  }, []);
  return versions;
}
