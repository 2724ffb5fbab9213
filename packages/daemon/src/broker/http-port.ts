/**
 * `BrokerPort` over HTTP: the broker control plane (`brokerRoutes`), the node-token `nodes`
 * routes and `human.requests.create` of `@svc/protocol`, reached on the daemon's unix socket
 * with the node's bearer token. Every answer is checked against the protocol's schema; an error envelope with a known code
 * becomes an `ApiError` (a 4xx is a refusal the tools show the model), anything else a
 * `DaemonError` the loop records as a fault.
 */

import { Agent, request } from 'node:http';
import {
  brokerSessionSchema,
  directiveSchema,
  faultRecordResultSchema,
  humanRequestSchema,
  isErrorCode,
  jobSchema,
  listOf,
  mailAcknowledgeResultSchema,
  mailClaimResultSchema,
  mailSchema,
  memoryDocumentSchema,
  memoryDocumentSummarySchema,
  nodeSchema,
  pluginTokenSchema,
  type RouteId,
  reportSchema,
  routeById,
  toolResultRecordSchema,
  turnRecordResultSchema,
} from '@svc/protocol';
import type { z } from 'zod';
import { ApiError, DaemonError } from '../errors.ts';
import type { SandboxPlan } from '../sandbox/plan.ts';
import { DAEMON_VERSION } from '../version.ts';
import type { BrokerLoad, BrokerNode, BrokerPort, WaitChildrenAnswer } from './port.ts';
import { JITLESS } from './zod-options.ts';

export interface HttpBrokerPortOptions {
  /** The daemon's unix socket. */
  socketPath: string;
  nodeId: string;
  /** The broker's node token (`svc_node_…`). */
  token: string;
  /** Where `bash` runs when a call names no directory (the node's worktree). */
  cwd: string;
  /** The daemon's home, kept out of the files tools (`BrokerLoad.home`). */
  home?: string | undefined;
  /** How the node's commands are confined (`BrokerLoad.sandbox`). */
  sandbox?: SandboxPlan | undefined;
  /** Per request; a daemon that does not answer in time is a fault. Default 30 s. */
  timeoutMs?: number;
}

export interface HttpBrokerPort extends BrokerPort {
  close(): Promise<void>;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const CHILDREN_PAGE = 100;
/** Bounds the walk over a node's children: 100 pages of 100. */
const MAX_CHILD_PAGES = 100;
const nodeListSchema = listOf(nodeSchema);
const memoryPageSchema = listOf(memoryDocumentSummarySchema);

interface CallOptions {
  /** `{id}` of the path; default the broker's own node. */
  id?: string;
  body?: unknown;
  query?: Record<string, string>;
  idempotencyKey?: string;
  /** Gives up the request (a long poll no longer needed). */
  signal?: AbortSignal;
}

export function createHttpBrokerPort(options: HttpBrokerPortOptions): HttpBrokerPort {
  const { socketPath, nodeId, token, cwd, home, sandbox } = options;
  for (const key of ['socketPath', 'nodeId', 'token', 'cwd'] as const) {
    if (typeof options[key] !== 'string' || options[key] === '') {
      throw new TypeError(`createHttpBrokerPort: \`${key}\` must be a non-empty string`);
    }
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  // node:http rather than undici's fetch: loading undici was a third of a broker's start.
  const agent = new Agent({ keepAlive: true });

  /** One request on the socket: the status and the body as text. */
  function send(
    method: string,
    path: string,
    headers: Record<string, string>,
    body: string | undefined,
    stop?: AbortSignal,
  ): Promise<{ status: number; text: string }> {
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = stop === undefined ? timeout : AbortSignal.any([timeout, stop]);
    return new Promise((resolve, reject) => {
      const req = request({ socketPath, path, method, headers, agent, signal }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.once('error', reject);
        res.once('end', () =>
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
        );
      });
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

  /** Outcomes of the ended children among `ids` (`'all'`: every child of the node). */
  async function childOutcomes(ids: string[] | 'all') {
    let children: BrokerNode[] = [];
    if (ids === 'all') {
      let after: string | null = null;
      for (let page = 0; page < MAX_CHILD_PAGES; page++) {
        const query: Record<string, string> = { parent_id: nodeId, limit: String(CHILDREN_PAGE) };
        if (after !== null) query.after = after;
        const list: z.output<typeof nodeListSchema> = await call('nodes.list', nodeListSchema, {
          query,
        });
        children.push(...list.data);
        if (!list.has_more || list.next_cursor === null) break;
        after = list.next_cursor;
      }
    } else {
      children = await Promise.all(ids.map((id) => call('nodes.retrieve', nodeSchema, { id })));
    }
    return children.flatMap((c) => (c.outcome === null ? [] : [{ id: c.id, outcome: c.outcome }]));
  }

  return {
    async load(): Promise<BrokerLoad> {
      const session = await call('broker.claim', brokerSessionSchema, {
        body: { pid: process.pid, broker_version: DAEMON_VERSION },
      });
      return { ...session, cwd, home, sandbox };
    },
    async pluginToken(plugin, group) {
      return (await call('broker.pluginToken.mint', pluginTokenSchema, { body: { plugin, group } }))
        .token;
    },
    recordTurn: (turn) => call('broker.turns.record', turnRecordResultSchema, { body: turn }),
    recordToolResult: (result) =>
      call('broker.toolResults.record', toolResultRecordSchema, { body: result }),
    async claimMail() {
      return (await call('nodes.mail.claim', mailClaimResultSchema, { body: {} })).data;
    },
    async ackMail(seqs) {
      await call('nodes.mail.acknowledge', mailAcknowledgeResultSchema, { body: { seqs } });
    },
    spawnChild: (spec, idempotencyKey) =>
      call('nodes.create', nodeSchema, { body: spec, idempotencyKey }),
    messageNode: (id, text, idempotencyKey) =>
      call('nodes.message', mailSchema, { id, body: { text }, idempotencyKey }),
    async waitChildren(ids, mode): Promise<WaitChildrenAnswer> {
      const node = await call('nodes.wait', nodeSchema, {
        body: { for: 'children', mode, ...(ids !== 'all' && { node_ids: ids }) },
      });
      // Parked: the daemon checked and parked in one transaction.
      if (node.state === 'waiting' && node.waiting_on?.for === 'children') {
        return { ready: false, pending: node.waiting_on.node_ids };
      }
      return { ready: true, children: await childOutcomes(ids) };
    },
    async submitResult(submission) {
      await call('broker.result.submit', nodeSchema, { body: submission });
    },
    askHuman: (ask, idempotencyKey) =>
      call('human.requests.create', humanRequestSchema, { body: ask, idempotencyKey }),
    async waitHuman(requestId) {
      await call('nodes.wait', nodeSchema, { body: { for: 'human', request_id: requestId } });
    },
    async report(report) {
      await call('broker.reports.create', reportSchema, { body: report });
    },
    memoryRead: (ref) => call('memory.get', memoryDocumentSchema, { query: defined(ref) }),
    memoryList: (query) => call('memory.list', memoryPageSchema, { query: defined(query) }),
    memoryWrite: (body, idempotencyKey) =>
      call('memory.write', memoryDocumentSchema, { body, idempotencyKey }),
    async park(reason) {
      await call('nodes.yield', nodeSchema, { body: { reason } });
    },
    async fault(report) {
      await call('broker.faults.record', faultRecordResultSchema, { body: report });
    },
    recordJob: (job) => call('broker.jobs.record', jobSchema, { body: job }),
    directive: (waitS, signal) =>
      call('broker.directive.get', directiveSchema, {
        query: { wait_s: String(waitS) },
        signal,
      }),
    async close() {
      agent.destroy();
    },
  };
}

/** A query's fields that are set (an absent one is no parameter, not `undefined`). */
function defined(query: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(query).filter((e): e is [string, string] => e[1] !== undefined),
  );
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
