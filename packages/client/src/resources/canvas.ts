import {
  type AttentionCounts,
  type AttentionItem,
  type AttentionQuery,
  assertId,
  type CanvasPruneBody,
  type CanvasPruneResult,
  type CanvasSnapshot,
  type CanvasSnapshotQuery,
  type HistoryGrepQuery,
  type HistoryGrepResult,
  type HistoryReadResult,
  type HistorySearchQuery,
  type HistorySearchResult,
  type HistoryStats,
  type HistoryStatsQuery,
  type historyReadQuerySchema,
  NODE_STATES,
  type NodeState,
  type RosterEntry,
  type RosterQuery,
  type SystemStatus,
} from '@svc/protocol';
import type { APIPromise } from '../core/api-promise.ts';
import type { PagePromise } from '../core/page-promise.ts';
import type { ListPage } from '../core/pages.ts';
import { pathOf } from '../core/path.ts';
import type { RequestOptions } from '../core/request-options.ts';
import { APIResource } from '../core/resource.ts';
import type { Transport } from '../core/transport.ts';
import type { Output } from '../internal/types.ts';
import type { NodeList, NodeListParams, Nodes } from './nodes.ts';
import type { System } from './system.ts';

export type AttentionList = ListPage<AttentionItem>;
export type AttentionListParams = AttentionQuery;
export type CanvasSnapshotParams = CanvasSnapshotQuery;
export type RosterList = ListPage<RosterEntry>;
export type RosterListParams = RosterQuery;
export type CanvasPruneParams = CanvasPruneBody;
export type HistorySearchParams = HistorySearchQuery;
export type HistoryGrepParams = HistoryGrepQuery;
export type HistoryReadParams = Omit<Output<typeof historyReadQuerySchema>, 'node_id'>;
export type HistoryStatsParams = HistoryStatsQuery;

/** `client.canvas.dashboard()`: the daemon's status and a page of nodes, fetched together. */
export interface Dashboard {
  status: SystemStatus;
  nodes: NodeList;
  /** The nodes of `nodes.data` by state (every state present, 0 when none). */
  counts: { total: number; by_state: Record<NodeState, number> };
}

/** A page this large unless the caller says otherwise: the dashboard is an overview. */
const DASHBOARD_LIMIT = 200;

/** The params of a call that needs some: an object, else a TypeError naming it (no request). */
function requireParams(value: unknown, argName: string, needs: string): void {
  if (typeof value !== 'object' || value === null) {
    throw new TypeError(`${argName} must be an object with ${needs}; received ${String(value)}`);
  }
}

/** An optional node id in a query is checked like a path's, before any request. */
function checkNode(value: unknown, argName: string): void {
  if (value !== undefined) assertId('node', value, argName);
}

/** `client.canvas.history`: the recorded turns, searched, grepped, read and summed. */
export class CanvasHistory extends APIResource {
  /** Full-text search over every visible turn, best first (GET /v1/canvas/history/search). */
  search(params: HistorySearchParams, options?: RequestOptions): APIPromise<HistorySearchResult> {
    requireParams(params, 'params', '`q`');
    checkNode(params.node_id, 'params.node_id');
    const query = { ...params };
    return this._transport.request('GET', pathOf('canvas.history.search'), { query }, options);
  }

  /** Lines matching a regular expression, newest turns first; bounded in time and output. */
  grep(params: HistoryGrepParams, options?: RequestOptions): APIPromise<HistoryGrepResult> {
    requireParams(params, 'params', '`pattern`');
    checkNode(params.node_id, 'params.node_id');
    const query = { ...params };
    return this._transport.request('GET', pathOf('canvas.history.grep'), { query }, options);
  }

  /** A node's transcript as text, from `from_turn` on; `next_cursor` is the next `from_turn`. */
  read(
    nodeId: string,
    params: HistoryReadParams = {},
    options?: RequestOptions,
  ): APIPromise<HistoryReadResult> {
    assertId('node', nodeId, 'nodeId');
    const query = { ...params, node_id: nodeId };
    return this._transport.request('GET', pathOf('canvas.history.read'), { query }, options);
  }

  /** Turns, tokens and cost by profile, model or day, and nodes by state. */
  stats(params: HistoryStatsParams = {}, options?: RequestOptions): APIPromise<HistoryStats> {
    const query = { ...params };
    return this._transport.request('GET', pathOf('canvas.history.stats'), { query }, options);
  }
}

/** `client.canvas`: the person's view of every agent they may see. */
export class Canvas extends APIResource {
  readonly history: CanvasHistory;
  readonly #nodes: Pick<Nodes, 'list'>;
  readonly #system: Pick<System, 'status'>;

  constructor(
    transport: Transport,
    parts: { nodes: Pick<Nodes, 'list'>; system: Pick<System, 'status'> },
  ) {
    super(transport);
    this.history = new CanvasHistory(transport);
    this.#nodes = parts.nodes;
    this.#system = parts.system;
  }

  /** What needs the person now, newest first (GET /v1/canvas/attention). */
  attention(
    params: AttentionListParams = {},
    options?: RequestOptions,
  ): PagePromise<AttentionList> {
    return this._transport.list(pathOf('canvas.attention'), { ...params }, options);
  }

  /** How many attention items there are, by kind. */
  attentionCounts(options?: RequestOptions): APIPromise<AttentionCounts> {
    return this._transport.request('GET', pathOf('canvas.attentionCounts'), {}, options);
  }

  /** The visible nodes as of `seq`: follow on with an event stream from `seq`, losing nothing. */
  snapshot(
    params: CanvasSnapshotParams = {},
    options?: RequestOptions,
  ): APIPromise<CanvasSnapshot> {
    checkNode(params.root_id, 'params.root_id');
    return this._transport.request(
      'GET',
      pathOf('canvas.snapshot'),
      { query: { ...params } },
      options,
    );
  }

  /** The live agents with their broker, usage and current wait. */
  roster(params: RosterListParams = {}, options?: RequestOptions): PagePromise<RosterList> {
    return this._transport.list(pathOf('canvas.roster'), { ...params }, options);
  }

  /** Removes old finished trees (owner only); `dry_run` only names them. */
  prune(params: CanvasPruneParams = {}, options?: RequestOptions): APIPromise<CanvasPruneResult> {
    return this._transport.request('POST', pathOf('canvas.prune'), { body: params }, options);
  }

  /**
   * The daemon's status and a page of nodes (default 200, newest first) with their counts by
   * state: `nodes.list` and `system.status` at once. The daemon has no dashboard route.
   */
  async dashboard(params: NodeListParams = {}, options?: RequestOptions): Promise<Dashboard> {
    const [nodes, status] = await Promise.all([
      this.#nodes.list({ limit: DASHBOARD_LIMIT, ...params }, options),
      this.#system.status(options),
    ]);
    const byState = Object.fromEntries(NODE_STATES.map((s) => [s, 0])) as Record<NodeState, number>;
    for (const node of nodes.data) byState[node.state]++;
    return { status, nodes, counts: { total: nodes.data.length, by_state: byState } };
  }
}
