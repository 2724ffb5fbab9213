/**
 * `client.customObjects` against a real daemon: register, publish (also with a client holding
 * only the publish token), receive as an async iterator that survives a cut connection and gets
 * every unacknowledged delivery again, ack, unregister; and the local id checks.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DaemonHandle, startDaemon } from '@svc/daemon';
import { Agent, type RequestInit as UndiciRequestInit, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  createLocalClient,
  NotFoundError,
  type ObjectDelivery,
  Svc,
  UnprocessableEntityError,
} from '../src/node.ts';

let home: string;
let daemon: DaemonHandle;
let client: Svc;
/** A unix socket in front of the daemon's: `cut()` drops every connection through it. */
let proxy: Server;
const through = new Set<Socket>();

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'svc-co-'));
  daemon = await startDaemon({ home, logLevel: 'warn', sseKeepaliveMs: 60_000 });
  client = createLocalClient({ home, maxRetries: 0 });
  proxy = createServer((down) => {
    const up = createConnection(daemon.socketPath);
    for (const socket of [down, up]) {
      through.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => {
        through.delete(socket);
        down.destroy();
        up.destroy();
      });
    }
    down.pipe(up).pipe(down);
  });
  await new Promise<void>((r) => proxy.listen(join(home, 'proxy.sock'), r));
});
afterAll(async () => {
  cut();
  await new Promise((r) => proxy.close(r));
  await daemon.close();
  rmSync(home, { recursive: true, force: true });
});

function cut(): void {
  for (const socket of through) socket.destroy();
}

/** A client whose connections go through the proxy. */
function proxied(token: string): Svc {
  const dispatcher = new Agent({ connect: { socketPath: join(home, 'proxy.sock') } });
  return new Svc({
    baseUrl: 'http://localhost',
    token,
    maxRetries: 3,
    fetch: (url, init) =>
      undiciFetch(url, {
        ...(init as UndiciRequestInit),
        dispatcher,
      }) as unknown as Promise<Response>,
  });
}

const register = () =>
  client.customObjects.register({
    name: 'builds',
    events: {
      'build.done': { schema: { type: 'object', required: ['ok'] } },
      ping: { description: 'anything' },
    },
    receiver: { kind: 'queue' },
  });

describe('client.customObjects', () => {
  it('registers, publishes with only the publish token, receives, acks and unregisters', async () => {
    const obj = await register();
    expect(obj).toMatchObject({
      id: expect.stringMatching(/^obj_/),
      receiver: { kind: 'queue' },
      publish_token: expect.stringMatching(/^svc_pub_/),
    });
    const publisher = createLocalClient({ home, token: obj.publish_token, maxRetries: 0 });
    const sent = await publisher.customObjects.publish(obj.id, {
      event: 'build.done',
      data: { ok: true },
    });
    expect(sent).toEqual({ delivery_id: expect.stringMatching(/^dlv_/), seq: expect.any(Number) });
    // The publish token does nothing else.
    await expect(publisher.customObjects.ack(obj.id, [sent.delivery_id])).rejects.toBeInstanceOf(
      AuthenticationError,
    );
    await expect(publisher.request('GET', `/v1/custom-objects/${obj.id}`)).rejects.toBeInstanceOf(
      AuthenticationError,
    );
    const bad = await publisher.customObjects
      .publish(obj.id, { event: 'build.done', data: {} })
      .catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(UnprocessableEntityError);
    expect((bad as UnprocessableEntityError).error).toMatchObject({ field: 'data.ok' });

    const stream = client.customObjects.receive(obj.id);
    let first: ObjectDelivery | undefined;
    for await (const delivery of stream) {
      first = delivery;
      break;
    }
    expect(first).toMatchObject({
      seq: sent.seq,
      kind: 'object.event',
      subject_id: obj.id,
      payload: { event: 'build.done', data: { ok: true }, delivery_id: sent.delivery_id },
    });
    await expect(client.customObjects.ack(obj.id, [sent.delivery_id])).resolves.toEqual({
      acked: 1,
      not_found: [],
    });
    // Listed and retrieved through the raw request.
    const page = await client.request<{ data: { id: string }[] }>('GET', '/v1/custom-objects');
    expect(page.data.map((o) => o.id)).toContain(obj.id);
    await expect(client.customObjects.unregister(obj.id)).resolves.toEqual({
      id: obj.id,
      deleted: true,
    });
    await expect(client.request('GET', `/v1/custom-objects/${obj.id}`)).rejects.toBeInstanceOf(
      NotFoundError,
    );
  });

  it('receive survives a cut connection: the unacknowledged deliveries come again, then live ones', async () => {
    const obj = await register();
    const publish = (event: 'ping' | 'build.done') =>
      client.customObjects.publish(obj.id, { event, data: { ok: true } });
    const d1 = await publish('ping');
    const d2 = await publish('ping');
    const reader = proxied(ownerToken());
    const seen: ObjectDelivery[] = [];
    let d3: { delivery_id: string; seq: number } | undefined;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), 10_000);
    try {
      for await (const delivery of reader.customObjects.receive(obj.id, {
        signal: controller.signal,
      })) {
        seen.push(delivery);
        if (seen.length === 2) {
          await client.customObjects.ack(obj.id, [d1.delivery_id]);
          cut();
          d3 = await publish('build.done');
        }
        if (seen.length === 4) break;
      }
    } finally {
      clearTimeout(timer);
    }
    // d2 was seen but not acknowledged before the cut: it comes again; d1 was acknowledged.
    expect(seen.map((d) => d.payload.delivery_id)).toEqual([
      d1.delivery_id,
      d2.delivery_id,
      d2.delivery_id,
      d3!.delivery_id,
    ]);
  });

  it('an unregistered object ends its receive loop with NotFoundError', async () => {
    const obj = await register();
    await client.customObjects.publish(obj.id, { event: 'ping' });
    const reader = createLocalClient({ home, maxRetries: 2 });
    const error = await (async () => {
      for await (const _ of reader.customObjects.receive(obj.id)) {
        await client.customObjects.unregister(obj.id);
      }
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
  });

  it('checks ids locally: a TypeError before any request', () => {
    const offline = new Svc({
      baseUrl: 'http://127.0.0.1:9',
      token: 'x',
      fetch: () => {
        throw new Error('no request may be sent');
      },
    });
    const objects = offline.customObjects;
    expect(() => objects.publish('cron_01ARZ3NDEKTSV4RRFFQ69G5FAV', { event: 'x' })).toThrow(
      TypeError,
    );
    expect(() => objects.unregister('obj_1')).toThrow(/ref must be a object id/);
    expect(() => objects.receive('../x')).toThrow(TypeError);
    expect(() => objects.ack('obj_01ARZ3NDEKTSV4RRFFQ69G5FAV', ['nope'])).toThrow(
      /deliveryIds\[0\] must be a delivery id/,
    );
    expect(() =>
      objects.ack('obj_01ARZ3NDEKTSV4RRFFQ69G5FAV', 'dlv_01ARZ3NDEKTSV4RRFFQ69G5FAV' as never),
    ).toThrow(TypeError);
  });
});

/** The home's owner token, as `createLocalClient` reads it. */
function ownerToken(): string {
  return readFileSync(join(home, 'owner.token'), 'utf8').trim();
}
