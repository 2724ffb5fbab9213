/**
 * The HTTP edges a property-based fuzzer found (issue 26, item 10), each sent as raw bytes over a
 * real socket so nothing between the test and the daemon fixes the request up: a body nobody
 * reads is not drained without limit, a body whose framing breaks is answered 400, two `Host`
 * headers are a 400 (RFC 9112 §3.2), and `Allow` names only the methods of the path itself.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { daemonLog, startTestDaemon, type TestDaemon } from './helpers.ts';

let t: TestDaemon;
let tcp: { host: string; port: number };
beforeAll(async () => {
  t = await startTestDaemon({ tcp: { port: 0 } });
  tcp = { host: '127.0.0.1', port: t.daemon.tcp!.port };
});
afterAll(() => t.stop());

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** One raw connection: bytes out as written, the first answer parsed, and the daemon's close. */
interface Raw {
  socket: Socket;
  answer: Promise<Answer>;
  /** Settles when the daemon has closed the connection (its FIN, or a reset). */
  closed: Promise<void>;
}

function open(to: 'unix' | 'tcp'): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const socket = to === 'unix' ? connect(t.daemon.socketPath) : connect(tcp.port, tcp.host);
    let data = Buffer.alloc(0);
    let onData: () => void = () => {};
    const answer = new Promise<Answer>((done, fail) => {
      onData = () => {
        const end = data.indexOf('\r\n\r\n');
        if (end === -1) return;
        const [line = '', ...fields] = data.subarray(0, end).toString('latin1').split('\r\n');
        const headers: Record<string, string> = {};
        for (const field of fields) {
          const colon = field.indexOf(':');
          headers[field.slice(0, colon).toLowerCase()] = field.slice(colon + 1).trim();
        }
        const length = Number(headers['content-length'] ?? 0);
        if (data.length < end + 4 + length) return;
        const body = data.subarray(end + 4, end + 4 + length).toString('utf8');
        done({ status: Number(line.split(' ')[1]), headers, body });
      };
      socket.once('close', () => fail(new Error(`closed before an answer: ${data}`)));
    });
    answer.catch(() => {});
    socket.on('data', (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      onData();
    });
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    // The daemon may reset a connection whose bytes it stopped reading; the close is what counts.
    socket.on('error', () => {});
    socket.once('connect', () => resolve({ socket, answer, closed }));
    socket.once('error', reject);
  });
}

const head = (lines: string[]) => `${lines.join('\r\n')}\r\n\r\n`;
const auth = () => `Authorization: Bearer ${t.ownerToken}`;

function expectEnvelope(answer: Answer, status: number, code: string): Record<string, unknown> {
  expect(answer.status, answer.body).toBe(status);
  const error = (JSON.parse(answer.body) as { error: Record<string, unknown> }).error;
  expect(error.code).toBe(code);
  expect(error.request_id).toBe(answer.headers['svc-request-id']);
  return error;
}

/**
 * Writes chunks of a body that never ends until the answer comes, as a client that stops at an
 * early answer does. A daemon that went on to drain the body would then wait for more of it and
 * never close the connection: the test would time out waiting for `closed`.
 */
async function feedUntilAnswered(raw: Raw): Promise<void> {
  let answered = false;
  const settled = raw.answer.then(
    () => {
      answered = true;
    },
    () => {
      answered = true;
    },
  );
  const chunk = `1000\r\n${'x'.repeat(0x1000)}\r\n`;
  while (!answered) {
    if (!raw.socket.write(chunk)) {
      await Promise.race([new Promise((resolve) => raw.socket.once('drain', resolve)), settled]);
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('a body nobody reads is not drained', () => {
  it('an unknown route answers 404 without a bearer and closes, not reading a chunked body to its end', async () => {
    const raw = await open('unix');
    raw.socket.write(
      head([
        'POST /v1/nope HTTP/1.1',
        'Host: localhost',
        'Content-Type: application/json',
        'Transfer-Encoding: chunked',
      ]),
    );
    await feedUntilAnswered(raw);
    const answer = await raw.answer;
    expectEnvelope(answer, 404, 'not_found');
    expect(answer.headers.connection).toBe('close');
    await raw.closed;
  });

  it('a wrong method answers 405 with Allow and closes, the declared 500 MiB never awaited', async () => {
    const raw = await open('tcp');
    raw.socket.write(
      head([
        'PUT /v1/status HTTP/1.1',
        `Host: 127.0.0.1:${tcp.port}`,
        `Content-Length: ${500 * 1024 * 1024}`,
      ]),
    );
    raw.socket.write('{"a":');
    const answer = await raw.answer;
    expectEnvelope(answer, 405, 'method_not_allowed');
    expect(answer.headers.allow).toBe('GET, HEAD');
    expect(answer.headers.connection).toBe('close');
    await raw.closed;
  });

  it('no bearer on a route that takes a body: 401 and closes', async () => {
    const raw = await open('unix');
    raw.socket.write(
      head([
        'POST /v1/connect HTTP/1.1',
        'Host: localhost',
        'Content-Type: application/json',
        `Content-Length: ${100 * 1024 * 1024}`,
      ]),
    );
    const answer = await raw.answer;
    expectEnvelope(answer, 401, 'unauthorized');
    expect(answer.headers.connection).toBe('close');
    await raw.closed;
  });

  it('a body read in full keeps the connection for the next request', async () => {
    const raw = await open('unix');
    const body = JSON.stringify({ app_id: 'edges', scopes: [] });
    raw.socket.write(
      head([
        'POST /v1/connect HTTP/1.1',
        'Host: localhost',
        auth(),
        'Content-Type: application/json',
        `Content-Length: ${Buffer.byteLength(body)}`,
      ]) + body,
    );
    const answer = await raw.answer;
    expect(answer.status, answer.body).toBe(200);
    expect(answer.headers.connection).toBe('keep-alive');
    raw.socket.destroy();
  });
});

describe('a body whose framing breaks is answered 400', () => {
  it('a chunk size that is no hex number', async () => {
    const raw = await open('unix');
    raw.socket.write(
      head([
        'POST /v1/connect HTTP/1.1',
        'Host: localhost',
        auth(),
        'Content-Type: application/json',
        'Transfer-Encoding: chunked',
      ]),
    );
    raw.socket.write('5\r\n{"app\r\nzz\r\n');
    const answer = await raw.answer;
    const error = expectEnvelope(answer, 400, 'invalid_request');
    expect(error.message).toMatch(/chunk/);
    expect(answer.headers.connection).toBe('close');
    await raw.closed;
  });

  it('a body the client cut short (its FIN before Content-Length bytes)', async () => {
    const raw = await open('unix');
    raw.socket.write(
      head([
        'POST /v1/connect HTTP/1.1',
        'Host: localhost',
        auth(),
        'Content-Type: application/json',
        'Content-Length: 100',
      ]),
    );
    raw.socket.end('{"app_id":');
    const answer = await raw.answer;
    const error = expectEnvelope(answer, 400, 'invalid_request');
    expect(error.message).toBe('the request body ended early');
    await raw.closed;
  });

  it('a malformed request pipelined behind a whole one ends the connection, never refusing the whole one', async () => {
    const raw = await open('unix');
    const body = JSON.stringify({ app_id: 'edges', scopes: [] });
    raw.socket.write(
      head([
        'POST /v1/connect HTTP/1.1',
        'Host: localhost',
        auth(),
        'Content-Type: application/json',
        `Content-Length: ${Buffer.byteLength(body)}`,
      ]) +
        body +
        'NOT HTTP AT ALL\r\n\r\n',
    );
    // A connection whose parser failed must not wait for more: it is closed. The whole request
    // is never refused for what followed it: it may go unanswered (the connection is gone), but
    // a 400 would say its body was broken.
    await raw.closed;
    const answer = await raw.answer.catch(() => null);
    expect(answer?.status ?? 200).toBe(200);
  });

  it('and neither is logged as a bug', async () => {
    const log = await daemonLog(t.home);
    expect(log).not.toContain('unhandled error');
    expect(log).not.toContain('answer not written');
  });
});

describe('two Host headers', () => {
  it('are a 400 on TCP, the allowed one first and a foreign one second (RFC 9112 §3.2)', async () => {
    for (const second of ['evil.example', `127.0.0.1:${tcp.port}`]) {
      const raw = await open('tcp');
      raw.socket.write(
        head(['GET /v1/health HTTP/1.1', `Host: 127.0.0.1:${tcp.port}`, `Host: ${second}`]),
      );
      const error = expectEnvelope(await raw.answer, 400, 'invalid_request');
      expect(error.field).toBe('Host');
      raw.socket.destroy();
    }
  });

  it('are a 400 on the socket too; one Host is served', async () => {
    const two = await open('unix');
    two.socket.write(head(['GET /v1/status HTTP/1.1', 'Host: localhost', 'host: localhost']));
    expectEnvelope(await two.answer, 400, 'invalid_request');
    two.socket.destroy();
    const one = await open('tcp');
    one.socket.write(head(['GET /v1/health HTTP/1.1', `Host: 127.0.0.1:${tcp.port}`]));
    expect((await one.answer).status).toBe(200);
    one.socket.destroy();
  });
});

describe('Allow names the methods of the path itself', () => {
  it('/v1/runs/all is not /v1/runs/{id}: OPTIONS and DELETE are 405 with Allow GET, HEAD', async () => {
    for (const method of ['OPTIONS', 'DELETE']) {
      const res = await t.call('/v1/runs/all', { method });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow')).toBe('GET, HEAD');
      await res.body?.cancel();
    }
    const run = await t.call('/v1/runs/run_01ARZ3NDEKTSV4RRFFQ69G5FAV', { method: 'OPTIONS' });
    expect(run.headers.get('allow')).toBe('DELETE, GET, HEAD');
    await run.body?.cancel();
  });
});
