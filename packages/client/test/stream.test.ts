import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APIConnectionError, AuthenticationError, Svc, type SvcEvent } from '../src/index.ts';
import { envelope, json, type Recorded, ScriptedServer } from './helpers/server.ts';

const server = new ScriptedServer();
let client: Svc;

beforeAll(async () => {
  client = new Svc({ baseUrl: await server.listen(), token: 'svc_owner_t', timeout: 2000 });
});
afterAll(() => server.close());

const event = (seq: number): SvcEvent => ({
  seq,
  kind: 'token.created',
  subject_id: null,
  payload: { n: seq },
  created_at: '2026-01-01T00:00:00.000Z',
});
const frame = (seq: number) =>
  `id: ${seq}\nevent: token.created\ndata: ${JSON.stringify(event(seq))}\n\n`;

function open(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
}

/** Where the client asked to resume: Last-Event-ID wins over ?after=, as in the daemon. */
function resumeFrom(req: Recorded): number {
  const after = new URL(req.url, 'http://x').searchParams.get('after');
  return Number(req.headers['last-event-id'] ?? after ?? 0);
}

async function take<T>(stream: AsyncIterable<T>, n: number): Promise<T[]> {
  const out: T[] = [];
  for await (const item of stream) {
    out.push(item);
    if (out.length === n) break;
  }
  return out;
}

describe('events.stream', () => {
  it('resumes after a dropped connection with Last-Event-ID: exactly once, in order', async () => {
    server.reset((req, res, i) => {
      open(res);
      const from = resumeFrom(req);
      if (i === 0) {
        res.write(frame(1) + frame(2) + frame(3));
        // Half an event, then the connection dies: the partial event must be dropped.
        res.write(`id: 4\ndata: {"seq":4`, () => setTimeout(() => res.destroy(), 20));
      } else {
        for (let seq = from + 1; seq <= 6; seq++) res.write(frame(seq));
      }
    });
    const stream = client.events.stream({}, { maxRetries: 1 });
    const events = await take(stream, 6);
    expect(events).toEqual([1, 2, 3, 4, 5, 6].map(event));
    expect(server.requests).toHaveLength(2);
    expect(server.requests[0]?.headers['last-event-id']).toBeUndefined();
    expect(server.requests[1]?.headers['last-event-id']).toBe('3');
    expect(stream.lastEventId).toBe('6');
  });

  it('sends accept, auth, kinds and a start point; options.after wins over params.after', async () => {
    server.reset((req, res) => {
      open(res);
      res.write(frame(resumeFrom(req) + 1));
    });
    await take(client.events.stream({ after: 9, kinds: ['token.created', 'token.revoked'] }), 1);
    const [first] = server.requests;
    expect(first?.url).toBe('/v1/events?kinds=token.created%2Ctoken.revoked');
    expect(first?.headers).toMatchObject({
      accept: 'text/event-stream',
      authorization: 'Bearer svc_owner_t',
      'last-event-id': '9',
    });
    server.reset((req, res) => {
      open(res);
      res.write(frame(resumeFrom(req) + 1));
    });
    const [next] = await take(client.events.stream({ after: 1 }, { after: 20 }), 1);
    expect(next?.seq).toBe(21);
  });

  it('aborts the request when the loop breaks', async () => {
    let closed = false;
    server.reset((_req, res) => {
      res.on('close', () => {
        closed = true;
      });
      open(res);
      res.write(frame(1));
    });
    await take(client.events.stream(), 1);
    for (let i = 0; i < 100 && !closed; i++) await new Promise((r) => setTimeout(r, 10));
    expect(closed).toBe(true);
  });

  it('retries a retryable answer and throws a non-retryable one at once', async () => {
    server.reset((_req, res, i) => {
      if (i === 0)
        return json(res, 503, envelope('not_ready', 'starting'), { 'retry-after-ms': '10' });
      open(res);
      res.write(frame(1));
    });
    await expect(take(client.events.stream(), 1)).resolves.toEqual([event(1)]);
    expect(server.requests).toHaveLength(2);

    server.reset((_req, res) => json(res, 401, envelope('unauthorized', 'bad token')));
    await expect(take(client.events.stream(), 1)).rejects.toBeInstanceOf(AuthenticationError);
    expect(server.requests).toHaveLength(1);
  });

  it('gives up after maxRetries consecutive failed connections', async () => {
    server.reset((_req, res) => {
      open(res);
      res.write(': hello\nretry: 10\n\n', () => res.destroy());
    });
    const stream = client.events.stream({}, { maxRetries: 2 });
    const error = await take(stream, 1).catch((e) => e);
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(server.requests).toHaveLength(3);
  });

  it('resets the failure budget whenever an event arrives', async () => {
    // Every connection delivers one event and drops: with maxRetries 1 it still goes on.
    server.reset((req, res) => {
      open(res);
      res.write(`retry: 10\n${frame(resumeFrom(req) + 1)}`, () => res.destroy());
    });
    const events = await take(client.events.stream({}, { maxRetries: 1 }), 4);
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
  });

  it('a clean end after a working while costs no retry: a quiet stream outlives many restarts', async () => {
    // Three quiet connections ended cleanly after a while (a daemon restarting), then an event.
    server.reset((_req, res, i) => {
      open(res);
      res.write('retry: 10\n\n');
      if (i < 3) setTimeout(() => res.end(': bye\n\n'), 1_100);
      else res.write(frame(1));
    });
    const events = await take(client.events.stream({}, { maxRetries: 1 }), 1);
    expect(events).toEqual([event(1)]);
    expect(server.requests).toHaveLength(4);
  });

  it('a server ending every connection at once is not retried without end', async () => {
    server.reset((_req, res) => {
      open(res);
      res.end(': bye\nretry: 10\n\n');
    });
    await expect(take(client.events.stream({}, { maxRetries: 2 }), 1)).resolves.toEqual([]);
    expect(server.requests).toHaveLength(3);
  });

  it('reconnects a silent connection after the idle timeout', async () => {
    const quick = new Svc({ baseUrl: client.baseUrl, timeout: 150 });
    server.reset((req, res, i) => {
      open(res);
      res.write(frame(resumeFrom(req) + 1)); // then silence on the first connection
      if (i > 0) res.write(frame(resumeFrom(req) + 2));
    });
    const events = await take(quick.events.stream(), 3);
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(server.requests[1]?.headers['last-event-id']).toBe('1');
  });

  it('does not count a slow consumer as a silent connection', async () => {
    const quick = new Svc({ baseUrl: client.baseUrl, timeout: 100 });
    server.reset((_req, res) => {
      open(res);
      res.write(frame(1));
      setTimeout(() => res.write(frame(2)), 20);
    });
    const seen: number[] = [];
    for await (const e of quick.events.stream()) {
      seen.push(e.seq);
      if (seen.length === 2) break;
      await new Promise((r) => setTimeout(r, 300));
    }
    expect(seen).toEqual([1, 2]);
    expect(server.requests).toHaveLength(1);
  });

  it('keeps a connection alive by comments alone', async () => {
    const quick = new Svc({ baseUrl: client.baseUrl, timeout: 150 });
    server.reset((_req, res) => {
      open(res);
      const timer = setInterval(() => res.write(': keepalive\n\n'), 40);
      setTimeout(() => {
        clearInterval(timer);
        res.write(frame(1));
      }, 400);
      res.on('close', () => clearInterval(timer));
    });
    await expect(take(quick.events.stream(), 1)).resolves.toEqual([event(1)]);
    expect(server.requests).toHaveLength(1);
  });

  it('waits the server retry field before reconnecting', async () => {
    server.reset((req, res, i) => {
      open(res);
      if (i === 0) res.write(`retry: 300\n${frame(1)}`, () => res.destroy());
      else res.write(frame(resumeFrom(req) + 1));
    });
    const started = performance.now();
    await take(client.events.stream(), 2);
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
  });

  it('ends on 204 and, with maxRetries 0, when the server ends the stream', async () => {
    server.reset((_req, res) => {
      res.writeHead(204);
      res.end();
    });
    await expect(take(client.events.stream(), 1)).resolves.toEqual([]);

    server.reset((_req, res) => {
      open(res);
      res.end(frame(1));
    });
    await expect(take(client.events.stream({}, { maxRetries: 0 }), 5)).resolves.toEqual([event(1)]);
    expect(server.requests).toHaveLength(1);
  });

  it('ends a follow: false stream after its backlog, on every stream, without reconnecting', async () => {
    server.reset((_req, res) => {
      open(res);
      res.end(frame(1) + frame(2));
    });
    const node = 'nd_01JABCDEFGHJKMNPQRSTVWXYZ0';
    const run = 'run_01JABCDEFGHJKMNPQRSTVWXYZ0';
    const streams = [
      client.events.stream({ follow: false }),
      client.nodes.stream(node, { follow: false }),
      client.runs.stream(run, { follow: false }),
    ];
    for (const stream of streams) {
      const seqs: number[] = [];
      for await (const e of stream as AsyncIterable<{ seq: number }>) seqs.push(e.seq);
      expect(seqs).toEqual([1, 2]);
    }
    expect(
      server.requests.map((r) => new URL(r.url, 'http://x').searchParams.get('follow')),
    ).toEqual(['false', 'false', 'false']);
  });

  it('ends the loop without an error when the caller aborts mid-stream, as Stainless streams do', async () => {
    server.reset((_req, res) => {
      open(res);
      res.write(frame(1));
    });
    const controller = new AbortController();
    const seen: number[] = [];
    for await (const e of client.events.stream({}, { signal: controller.signal })) {
      seen.push(e.seq);
      setTimeout(() => controller.abort(), 20);
    }
    expect(seen).toEqual([1]);
    expect(server.requests).toHaveLength(1);
  });

  it('ends the loop when the caller aborts while it waits to reconnect', async () => {
    server.reset((_req, res) => res.writeHead(503, { 'retry-after': '30' }).end());
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const seen: unknown[] = [];
    for await (const e of client.events.stream({}, { signal: controller.signal })) seen.push(e);
    expect(seen).toEqual([]);
  });

  it('an aborted signal given at the start ends the loop at once, sending nothing', async () => {
    const seen: unknown[] = [];
    const before = server.requests.length;
    for await (const e of client.events.stream({}, { signal: AbortSignal.abort() })) seen.push(e);
    expect(seen).toEqual([]);
    expect(server.requests.length).toBe(before);
  });

  it('an event whose data is no JSON ends the loop with a SvcError invalid_event', async () => {
    server.reset((_req, res) => {
      open(res);
      res.write('id: 1\nevent: x\ndata: {oops\n\n');
    });
    const error = await (async () => {
      for await (const _ of client.events.stream({})) {
        // nothing arrives
      }
    })().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'invalid_event' });
  });

  it('checks maxRetries like every other option', () => {
    expect(() => client.events.stream({}, { maxRetries: -1 })).toThrow(/options\.maxRetries/);
  });
});

describe('customObjects.receive', () => {
  const obj = 'obj_01JABCDEFGHJKMNPQRSTVWXYZ0';
  const delivery = (seq: number) =>
    `id: ${seq}\nevent: delivery\ndata: ${JSON.stringify({ seq, delivery_id: `d${seq}` })}\n\n`;
  // Each connect replays what is unacknowledged (seq 4) before the live one (seq 7).
  const replayThenLive = () =>
    server.reset((_req, res, i) => {
      open(res);
      if (i === 0) res.end(`retry: 10\n\n${delivery(7)}${delivery(4)}`);
      else res.write(delivery(9));
    });

  it('reconnects with no cursor: the daemon would read one as a request for acknowledged ones', async () => {
    replayThenLive();
    const seen = await take(client.customObjects.receive(obj), 3);
    expect(seen.map((d) => (d as { seq: number }).seq)).toEqual([7, 4, 9]);
    expect(server.requests.map((r) => r.headers['last-event-id'])).toEqual([undefined, undefined]);
  });

  it('given after, goes on from the highest seq seen, not the last replayed', async () => {
    replayThenLive();
    await take(client.customObjects.receive(obj, { after: 2 }), 3);
    expect(server.requests.map((r) => r.headers['last-event-id'])).toEqual(['2', '7']);
  });
});
