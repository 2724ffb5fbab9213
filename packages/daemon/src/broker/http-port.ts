/**
 * `BrokerPort` over HTTP: the broker control plane (`brokerRoutes`), the node-token `nodes`
 * routes and `human.requests.create` of `@svc/protocol`, reached on the daemon's unix socket
 * with the node's bearer token: each method one call (`http-call.ts`, which checks the answer
 * against the protocol's schema and turns an error envelope into an `ApiError` or a fault).
 */

import {
  brokerSessionSchema,
  directiveSchema,
  faultRecordResultSchema,
  humanRequestSchema,
  jobSchema,
  listOf,
  mailAcknowledgeResultSchema,
  mailClaimResultSchema,
  mailSchema,
  memoryDocumentSchema,
  memoryDocumentSummarySchema,
  nodeSchema,
  pluginTokenSchema,
  reportSchema,
  toolResultRecordSchema,
  turnRecordResultSchema,
} from '@svc/protocol';
import type { z } from 'zod';
import type { SandboxPlan } from '../sandbox/plan.ts';
import { DAEMON_VERSION } from '../version.ts';
import { type BrokerCall, createBrokerCaller } from './http-call.ts';
import type { BrokerLoad, BrokerNode, BrokerPort, WaitChildrenAnswer } from './port.ts';

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

export function createHttpBrokerPort(options: HttpBrokerPortOptions): HttpBrokerPort {
  const { socketPath, nodeId, token, cwd, home, sandbox } = options;
  for (const key of ['socketPath', 'nodeId', 'token', 'cwd'] as const) {
    if (typeof options[key] !== 'string' || options[key] === '') {
      throw new TypeError(`createHttpBrokerPort: \`${key}\` must be a non-empty string`);
    }
  }
  const { call, close } = createBrokerCaller({
    socketPath,
    nodeId,
    token,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  });

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
      return { ready: true, children: await childOutcomes(call, nodeId, ids) };
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
      close();
    },
  };
}

/** A query's fields that are set (an absent one is no parameter, not `undefined`). */
function defined(query: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(query).filter((e): e is [string, string] => e[1] !== undefined),
  );
}

/** Outcomes of the ended children among `ids` (`'all'`: every child of the node). */
async function childOutcomes(call: BrokerCall, nodeId: string, ids: string[] | 'all') {
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
