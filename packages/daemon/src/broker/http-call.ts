/**
 * One call of the broker to the daemon over its unix socket, as `createHttpBrokerPort` makes
 * them: the route's path and method from `@svc/protocol`, the node's bearer token, the answer
 * checked against the route's schema. An error envelope with a known code becomes an `ApiError`
 * (a 4xx is a refusal the tools show the model), anything else a `DaemonError` the loop records
 * as a fault.
 */
import { Agent, request } from 'node:http';
import { isErrorCode, type RouteId, routeById } from '@svc/protocol';
import type { z } from 'zod';
import { ApiError, DaemonError } from '../errors.ts';
import { JITLESS } from './zod-options.ts';

export interface CallOptions {
  /** `{id}` of the path; default the broker's own node. */
  id?: string;
  body?: unknown;
  query?: Record<string, string>;
  idempotencyKey?: string;
  /** Gives up the request (a long poll no longer needed). */
  signal?: AbortSignal;
}

export type BrokerCall = <S extends z.ZodType>(
  routeId: RouteId,
  schema: S,
  opts?: CallOptions,
) => Promise<z.output<S>>;

export interface BrokerCaller {
  call: BrokerCall;
  /**
   * Ends the connections and cuts off requests in flight; every call from now on is refused
   * unsent. A node dropped from its host records nothing more (an `Agent` alone would reconnect).
   */
  close(): void;
}

export function createBrokerCaller(options: {
  socketPath: string;
  nodeId: string;
  token: string;
  timeoutMs: number;
}): BrokerCaller {
  const { socketPath, nodeId, token, timeoutMs } = options;
  // node:http rather than undici's fetch: loading undici was a third of a broker's start.
  const agent = new Agent({ keepAlive: true });
  const closed = new AbortController();

  /** One request on the socket: the status and the body as text. */
  function send(
    method: string,
    path: string,
    headers: Record<string, string>,
    body: string | undefined,
    stop?: AbortSignal,
  ): Promise<{ status: number; text: string }> {
    if (closed.signal.aborted) {
      return Promise.reject(
        new DaemonError('broker_closed', `${path}: the broker's port is closed`),
      );
    }
    // The port's own end, and the caller's stop only when it gave one (a long poll): a signal
    // made per call (`AbortSignal.timeout`, `AbortSignal.any`) cost a call 50–70 µs of the
    // host's CPU, a fifth of its share of a round trip. The time limit is a plain timer instead.
    const signal = stop === undefined ? closed.signal : AbortSignal.any([closed.signal, stop]);
    return new Promise((resolve, reject) => {
      // `servername: ''`: no TLS here, so the agent need not test the host for an IP address,
      // whose regular expression costs a fresh broker 8–20 ms to compile at its first request.
      const options = { socketPath, path, method, headers, agent, signal, servername: '' };
      const req = request(options, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.once('error', reject);
        res.once('end', () =>
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
        );
      });
      // As `AbortSignal.timeout` ended a call: an `AbortError` whose cause is a `TimeoutError`.
      const timer = setTimeout(() => req.destroy(timedOut(path, timeoutMs)), timeoutMs);
      req.once('close', () => clearTimeout(timer));
      req.once('error', reject);
      req.end(body);
    });
  }

  async function call<S extends z.ZodType>(
    routeId: RouteId,
    schema: S,
    opts: CallOptions = {},
  ): Promise<z.output<S>> {
    const route = routeById(routeId);
    const path = route.path.replace('{id}', encodeURIComponent(opts.id ?? nodeId));
    const query = opts.query === undefined ? '' : `?${new URLSearchParams(opts.query)}`;
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    if (opts.idempotencyKey !== undefined) headers['idempotency-key'] = opts.idempotencyKey;
    // The daemon accepts Host `localhost` on its socket, node:http's default.
    const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
    const { status, text } = await send(
      route.method,
      `${path}${query}`,
      headers,
      body,
      opts.signal,
    );
    const json = parseJson(text);
    if (status < 200 || status > 299) throw answerError(routeId, status, json);
    const parsed = schema.safeParse(json, JITLESS);
    if (!parsed.success) {
      throw new DaemonError(
        'broker_bad_answer',
        `${routeId}: the daemon's answer does not match its schema`,
        {
          cause: parsed.error,
        },
      );
    }
    return parsed.data;
  }

  return {
    call,
    close: () => {
      closed.abort();
      agent.destroy();
    },
  };
}

function timedOut(path: string, ms: number): Error {
  const cause = new DOMException(`${path}: no answer within ${ms} ms`, 'TimeoutError');
  return Object.assign(new Error('The operation was aborted', { cause }), {
    name: 'AbortError',
    code: 'ABORT_ERR',
  });
}

function parseJson(text: string): unknown {
  try {
    return text === '' ? null : JSON.parse(text);
  } catch {
    return text;
  }
}

function answerError(routeId: string, status: number, body: unknown): DaemonError {
  const error = (body as { error?: Record<string, unknown> } | null)?.error;
  const code = error?.code;
  const message = typeof error?.message === 'string' ? error.message : `HTTP ${status}`;
  if (isErrorCode(code)) {
    return new ApiError(code, message, {
      ...(typeof error?.field === 'string' && { field: error.field }),
      ...(error !== undefined && 'received' in error && { received: error.received }),
    });
  }
  return new DaemonError(
    'broker_transport',
    `${routeId}: the daemon answered ${status}: ${message}`,
  );
}
