/**
 * Custom objects' pushed receivers against a real daemon: a url receiver is a real local HTTP
 * server that checks the Standard Webhooks signature (and fails before it succeeds), an argv
 * receiver a real child process reading its stdin; a delivery in flight when the daemon is killed
 * arrives once the next daemon starts on the same home, counted as its second attempt.
 */
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DaemonHandle, startDaemon } from '../src/index.ts';
import { besideDaemon } from './beside-daemon.ts';
import { flushGate } from './flush-gate.ts';
import {
  DAEMON_MAIN,
  daemonProcesses,
  json,
  scratchDirs,
  socketFetch,
  startTestDaemon,
  type TestDaemon,
} from './helpers.ts';
import { eventBacklog } from './sse.ts';

/** Fast retries, so a test sees every attempt within a second or two. */
const FAST = { maxAttempts: 3, retryBaseMs: 20, retryMaxMs: 100, attemptTimeoutMs: 3_000 };

let t: TestDaemon;
beforeAll(async () => {
  t = await startTestDaemon({ objects: FAST });
});
afterAll(() => t.stop());

const scratch = scratchDirs('svcd-obj-');

interface Hit {
  headers: IncomingMessage['headers'];
  body: string;
}

/** A local endpoint: `answer(n)` decides the status of the n-th request (1-based), or holds it. */
async function endpoint(answer: (n: number) => number | 'hold') {
  const hits: Hit[] = [];
  const held: ServerResponse[] = [];
  let dropped = 0;
  const waiters: (() => void)[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c;
    });
    req.on('end', () => {
      hits.push({ headers: req.headers, body });
      for (const w of waiters.splice(0)) w();
      const status = answer(hits.length);
      if (status === 'hold') {
        held.push(res);
        res.once('close', () => dropped++);
      } else res.writeHead(status).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hook?x=1`,
    hits,
    /** How many held requests the daemon gave up on (closed its end). */
    dropped: () => dropped,
    /** Resolves once `n` requests arrived (at most `ms`). */
    async until(n: number, ms = 10_000) {
      const deadline = Date.now() + ms;
      while (hits.length < n && Date.now() < deadline) {
        await new Promise<void>((r) => {
          waiters.push(r);
          setTimeout(r, 50);
        });
      }
      return hits;
    },
    close: () =>
      new Promise<void>((r) => {
        for (const res of held) res.destroy();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

function verify(secret: string, hit: Hit): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const id = String(hit.headers['webhook-id']);
  const ts = String(hit.headers['webhook-timestamp']);
  const expected = createHmac('sha256', key).update(`${id}.${ts}.${hit.body}`).digest('base64');
  return String(hit.headers['webhook-signature'])
    .split(' ')
    .some((sig) => sig === `v1,${expected}`);
}

async function registerWith(call: TestDaemon['call'], receiver: unknown) {
  const res = await call(
    '/v1/custom-objects',
    json({ name: 'hooks', events: { 'job.done': {}, other: {} }, receiver }),
  );
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as { id: string; publish_token: string; signing_secret?: string };
}

async function publishWith(call: TestDaemon['call'], id: string, token: string, data: unknown) {
  const res = await call(`/v1/custom-objects/${id}/publish`, {
    ...json({ event: 'job.done', data }),
    token,
  });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as { delivery_id: string; seq: number };
}

/** The `object.delivery` payloads of one delivery, in order. */
async function deliveryStates(call: TestDaemon['call'], deliveryId: string) {
  const events = await eventBacklog<{ delivery_id: string; state: string }>(
    call,
    'object.delivery',
  );
  return events.map((e) => e.payload).filter((p) => p.delivery_id === deliveryId);
}

async function eventually<T>(probe: () => Promise<T>, ok: (v: T) => boolean, ms = 10_000) {
  const deadline = Date.now() + ms;
  let value = await probe();
  while (!ok(value) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    value = await probe();
  }
  return value;
}

describe('a url receiver', () => {
  it('gets a signed POST of the delivery, retried with backoff until it answers 2xx', async () => {
    const hook = await endpoint((n) => (n <= 2 ? 500 : 204));
    try {
      const obj = await registerWith(t.call, { kind: 'url', url: hook.url });
      const sent = await publishWith(t.call, obj.id, obj.publish_token, { ok: true });
      const hits = await hook.until(3);
      expect(hits).toHaveLength(3);
      for (const hit of hits) {
        expect(hit.headers['webhook-id']).toBe(sent.delivery_id);
        expect(hit.headers['content-type']).toBe('application/json');
        expect(Number(hit.headers['webhook-timestamp'])).toBeCloseTo(Date.now() / 1000, -2);
        expect(verify(obj.signing_secret!, hit)).toBe(true);
        expect(verify('whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=', hit)).toBe(false);
        expect(JSON.parse(hit.body)).toMatchObject({
          seq: sent.seq,
          kind: 'object.event',
          subject_id: obj.id,
          payload: { object_id: obj.id, event: 'job.done', data: { ok: true } },
        });
      }
      const states = await eventually(
        () => deliveryStates(t.call, sent.delivery_id),
        (s) => s.length >= 3,
      );
      expect(states).toMatchObject([
        { state: 'pending', attempts: 1, error: 'HTTP 500', next_attempt_at: expect.any(String) },
        { state: 'pending', attempts: 2, error: 'HTTP 500' },
        { state: 'delivered', attempts: 3 },
      ]);
      const got = (await (await t.call(`/v1/custom-objects/${obj.id}`)).json()) as {
        pending_deliveries: number;
      };
      expect(got.pending_deliveries).toBe(0);
      await new Promise((r) => setTimeout(r, 150));
      expect(hook.hits).toHaveLength(3);
    } finally {
      await hook.close();
    }
  });

  it('fails for good once its attempts are spent; a redirect is no success', async () => {
    const hook = await endpoint(() => 302);
    try {
      const obj = await registerWith(t.call, { kind: 'url', url: hook.url });
      const sent = await publishWith(t.call, obj.id, obj.publish_token, null);
      const states = await eventually(
        () => deliveryStates(t.call, sent.delivery_id),
        (s) => s.at(-1)?.state === 'failed',
      );
      expect(states.map((s) => s.state)).toEqual(['pending', 'pending', 'failed']);
      expect(states.at(-1)).toMatchObject({ attempts: 3, error: 'HTTP 302' });
      await new Promise((r) => setTimeout(r, 150));
      expect(hook.hits).toHaveLength(FAST.maxAttempts);
    } finally {
      await hook.close();
    }
  });

  it('stops when its object is unregistered: the attempt in flight is dropped, none follows', async () => {
    const hook = await endpoint(() => 'hold');
    try {
      const obj = await registerWith(t.call, { kind: 'url', url: hook.url });
      await publishWith(t.call, obj.id, obj.publish_token, 1);
      await hook.until(1);
      expect(hook.dropped()).toBe(0);
      await t.call(`/v1/custom-objects/${obj.id}`, { method: 'DELETE' });
      // Well before the attempt's own 3 s timeout: the daemon aborted it.
      const dropped = await eventually(
        async () => hook.dropped(),
        (n) => n === 1,
        1_000,
      );
      expect(dropped).toBe(1);
      await new Promise((r) => setTimeout(r, 300));
      expect(hook.hits).toHaveLength(1);
    } finally {
      await hook.close();
    }
  });
});

/** A node program that appends its stdin (one delivery) to `out` and exits with `code`. */
function program(out: string, failFirst: boolean): string[] {
  const script = `
    const fs = require('node:fs');
    const marker = process.argv[1] + '.tried';
    if (${failFirst} && !fs.existsSync(marker)) { fs.writeFileSync(marker, ''); console.error('not yet'); process.exit(3); }
    fs.appendFileSync(process.argv[1], fs.readFileSync(0, 'utf8') + '\\n' + process.env.SVC_DELIVERY_ID + ' ' + process.cwd() + '\\n');
  `;
  return [process.execPath, '-e', script, out];
}

describe('an argv receiver', () => {
  it('runs the program without a shell, the delivery on stdin; a non-zero exit is retried', async () => {
    const dir = scratch();
    const out = join(dir, 'out.txt');
    const obj = await registerWith(t.call, { kind: 'argv', argv: program(out, true), cwd: dir });
    const sent = await publishWith(t.call, obj.id, obj.publish_token, { n: 1 });
    const states = await eventually(
      () => deliveryStates(t.call, sent.delivery_id),
      (s) => s.at(-1)?.state === 'delivered',
    );
    expect(states).toMatchObject([
      { state: 'pending', attempts: 1, error: 'exit code 3: not yet' },
      { state: 'delivered', attempts: 2 },
    ]);
    const [body, env] = readFileSync(out, 'utf8').trim().split('\n');
    expect(JSON.parse(body!)).toMatchObject({
      seq: sent.seq,
      kind: 'object.event',
      payload: {
        object_id: obj.id,
        event: 'job.done',
        data: { n: 1 },
        delivery_id: sent.delivery_id,
      },
    });
    expect(env).toBe(`${sent.delivery_id} ${dir}`);
  });

  it("an app's, registered before only the owner could, is never run: it fails at once, saying why", async () => {
    const dir = scratch();
    const out = join(dir, 'out.txt');
    const obj = await registerWith(t.call, { kind: 'argv', argv: program(out, false) });
    // As an app's argv receiver was stored when svc:act sufficed (now 403 at register).
    const raw = besideDaemon(t.home);
    raw.prepare("UPDATE custom_objects SET app_id = 'old-app' WHERE id = ?").run(obj.id);
    raw.close();
    const sent = await publishWith(t.call, obj.id, obj.publish_token, null);
    const states = await eventually(
      () => deliveryStates(t.call, sent.delivery_id),
      (s) => s.at(-1)?.state === 'failed',
    );
    expect(states).toMatchObject([
      { state: 'failed', attempts: 1, error: expect.stringMatching(/^refused: .*unconfined/) },
    ]);
    expect(existsSync(out)).toBe(false);
  });

  it('fails for good after its attempts; a program that cannot start is a failed attempt', async () => {
    const obj = await registerWith(t.call, { kind: 'argv', argv: ['/no/such/program'] });
    const sent = await publishWith(t.call, obj.id, obj.publish_token, null);
    const states = await eventually(
      () => deliveryStates(t.call, sent.delivery_id),
      (s) => s.at(-1)?.state === 'failed',
    );
    expect(states.map((s) => s.state)).toEqual(['pending', 'pending', 'failed']);
    expect(states.at(-1)).toMatchObject({ error: expect.stringMatching(/^cannot run/) });
  });

  it('a program past the attempt time is killed and counts as failed', async () => {
    const slow = await startTestDaemon({
      objects: { ...FAST, maxAttempts: 1, attemptTimeoutMs: 200 },
    });
    try {
      const obj = await registerWith(slow.call, {
        kind: 'argv',
        argv: [process.execPath, '-e', 'setTimeout(() => {}, 60000)'],
      });
      const sent = await publishWith(slow.call, obj.id, obj.publish_token, null);
      const states = await eventually(
        () => deliveryStates(slow.call, sent.delivery_id),
        (s) => s.at(-1)?.state === 'failed',
      );
      expect(states).toMatchObject([{ state: 'failed', error: 'timed out or stopped' }]);
    } finally {
      await slow.stop();
    }
  });
});

describe('a restart', () => {
  const { newHome, pids } = daemonProcesses();
  let restarted: DaemonHandle | undefined;
  afterAll(async () => {
    await restarted?.close();
  });

  it('resumes a delivery whose attempt was in flight when the daemon was killed', async () => {
    // The first request is held open until the daemon is gone; the next is answered 200.
    const hook = await endpoint((n) => (n === 1 ? 'hold' : 200));
    try {
      const home = newHome();
      const child = spawn(
        process.execPath,
        ['--disable-warning=ExperimentalWarning', DAEMON_MAIN, '--home', home],
        { stdio: 'ignore' },
      );
      pids.push(child.pid!);
      const sock = join(home, 'daemon.sock');
      await eventually(
        async () => existsSync(sock) && existsSync(join(home, 'owner.token')),
        (ok) => ok,
      );
      const call = socketFetch(sock, readFileSync(join(home, 'owner.token'), 'utf8').trim());
      await eventually(
        async () => (await call('/healthz').catch(() => null))?.status === 200,
        (ok) => ok,
      );
      const obj = await registerWith(call, { kind: 'url', url: hook.url });
      const sent = await publishWith(call, obj.id, obj.publish_token, { survive: true });
      await hook.until(1);
      expect(hook.hits).toHaveLength(1);
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;

      restarted = await startDaemon({ home, logLevel: 'warn', objects: FAST });
      const hits = await hook.until(2);
      expect(hits).toHaveLength(2);
      expect(hits[1]!.headers['webhook-id']).toBe(sent.delivery_id);
      expect(verify(obj.signing_secret!, hits[1]!)).toBe(true);
      const after = socketFetch(
        restarted.socketPath,
        readFileSync(join(home, 'owner.token'), 'utf8').trim(),
      );
      const states = await eventually(
        () => deliveryStates(after, sent.delivery_id),
        (s) => s.at(-1)?.state === 'delivered',
      );
      expect(states.at(-1)).toMatchObject({ state: 'delivered', attempts: 2 });
    } finally {
      await hook.close();
    }
  });
});

describe('a held flush', () => {
  it('sends no attempt before its take is durable, so a kill -9 cannot lose the count', async () => {
    const gate = flushGate();
    const held = await startTestDaemon({ objects: FAST, flush: gate.flush });
    const hook = await endpoint(() => 200);
    const db = new DatabaseSync(join(held.home, 'svc.db'), { readOnly: true });
    try {
      const obj = await registerWith(held.call, { kind: 'url', url: hook.url });
      const published = gate.hold();
      const answer = publishWith(held.call, obj.id, obj.publish_token, null);
      await published;
      // The publish's flush goes; the next ones (the dispatcher's take among them) are held.
      gate.release();
      void gate.hold();
      const sent = await answer;
      // A batch reaches the WAL just before its flush, so another connection sees the take.
      const attempts = db.prepare('SELECT attempts FROM object_deliveries WHERE id = ?');
      await eventually(
        async () => (attempts.get(sent.delivery_id) as { attempts: number }).attempts,
        (n) => n === 1,
      );
      // Only a pass can be false: an attempt sent before its flush would arrive within this.
      expect(await hook.until(1, 300)).toHaveLength(0);
      gate.release();
      expect(await hook.until(1)).toHaveLength(1);
      const states = await eventually(
        () => deliveryStates(held.call, sent.delivery_id),
        (s) => s.at(-1)?.state === 'delivered',
      );
      expect(states.at(-1)).toMatchObject({ state: 'delivered', attempts: 1 });
    } finally {
      db.close();
      gate.release();
      await hook.close();
      await held.stop();
    }
  });
});
