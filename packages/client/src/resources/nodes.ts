import type {
  Job,
  ListQuery,
  Mail,
  MessageBody,
  Node,
  NodeCreateAndWaitBody,
  NodeCreateBody,
  NodeDemoteBody,
  NodeEvent,
  NodeEventsQuery,
  NodeForkBody,
  NodeListQuery,
  NodeOutcome,
  NodeParseBody,
  NodeParseResult,
  NodeRecycleBody,
  NodeReviveAllBody,
  NodeReviveAllResult,
  NodeReviveBody,
  NodeUpdateBody,
  NodeWaitBody,
  NodeWaitResult,
  nodeStreamQuerySchema,
  ReasonBody,
  Report,
  ResultSubmitBody,
  Worktree,
} from '@svc/protocol';
import type { APIPromise } from '../core/api-promise.ts';
import { NodeStream, openOutcomeStream } from '../core/outcome-stream.ts';
import type { PagePromise } from '../core/page-promise.ts';
import type { ListPage } from '../core/pages.ts';
import { id, pathOf } from '../core/path.ts';
import type { RequestOptions, StreamOptions } from '../core/request-options.ts';
import { APIResource } from '../core/resource.ts';
import type { Transport } from '../core/transport.ts';
import type { Output } from '../internal/types.ts';
import { startParse, startThenWait, type WaitParams, waitFor } from './wait.ts';

export type NodeCreateParams = NodeCreateBody;
/** The create body plus `timeout_s`: the client's whole wait (it loops the bounded server wait). */
export type NodeCreateAndWaitParams = NodeCreateAndWaitBody;
export type NodeParseParams = NodeParseBody;
export type NodeListParams = NodeListQuery;
export type NodeUpdateParams = NodeUpdateBody;
export type NodeReasonParams = ReasonBody;
export type NodeMessageParams = MessageBody;
export type NodeForkParams = NodeForkBody;
export type NodeReviveParams = NodeReviveBody;
export type NodeReviveAllParams = NodeReviveAllBody;
export type NodeDemoteParams = NodeDemoteBody;
export type NodeRecycleParams = NodeRecycleBody;
export type NodeWaitParams = NodeWaitBody;
export type NodeEventsParams = NodeEventsQuery;
export type NodeStreamParams = Omit<Output<typeof nodeStreamQuerySchema>, 'after'>;
export type ResultSubmitParams = ResultSubmitBody;
export type PageParams = ListQuery;

export type NodeList = ListPage<Node>;
export type NodeEventList = ListPage<NodeEvent>;
export type ReportList = ListPage<Report>;
export type JobList = ListPage<Job>;

const node = (value: unknown) => id('node', value, 'nodeId');

export class NodeReports extends APIResource {
  /** A node's progress reports, oldest first (GET /v1/nodes/{id}/reports). */
  list(nodeId: string, params: PageParams = {}, options?: RequestOptions): PagePromise<ReportList> {
    const url = pathOf('nodes.reports.list', { id: node(nodeId) });
    return this._transport.list(url, { ...params }, options);
  }
}

export class NodeJobs extends APIResource {
  /** A node's jobs, newest first (GET /v1/nodes/{id}/jobs). */
  list(nodeId: string, params: PageParams = {}, options?: RequestOptions): PagePromise<JobList> {
    const url = pathOf('nodes.jobs.list', { id: node(nodeId) });
    return this._transport.list(url, { ...params }, options);
  }

  /** Stops a running job (POST /v1/nodes/{id}/jobs/{job_id}/cancel). */
  cancel(nodeId: string, jobId: string, options?: RequestOptions): APIPromise<Job> {
    const url = pathOf('nodes.jobs.cancel', {
      id: node(nodeId),
      job_id: id('job', jobId, 'jobId'),
    });
    return this._transport.request('POST', url, {}, options);
  }
}

export class NodeResult extends APIResource {
  /** Submits the node's result from outside; the node is done (POST /v1/nodes/{id}/result). */
  submit(nodeId: string, params: ResultSubmitParams, options?: RequestOptions): APIPromise<Node> {
    const url = pathOf('nodes.result.submit', { id: node(nodeId) });
    return this._transport.request('POST', url, { body: params }, options);
  }
}

export class NodeWorktree extends APIResource {
  /**
   * Removes a final node's worktree when it holds nothing; a `ConflictError` while it holds files
   * (POST /v1/nodes/{id}/worktree/close).
   */
  close(nodeId: string, options?: RequestOptions): APIPromise<Worktree> {
    const url = pathOf('nodes.worktree.close', { id: node(nodeId) });
    return this._transport.request('POST', url, {}, options);
  }

  /** Removes a final node's worktree and its files (POST /v1/nodes/{id}/worktree/abandon). */
  abandon(nodeId: string, options?: RequestOptions): APIPromise<Worktree> {
    const url = pathOf('nodes.worktree.abandon', { id: node(nodeId) });
    return this._transport.request('POST', url, {}, options);
  }
}

/** `client.nodes`: agents on the canvas, their lifecycle, mail, outcomes and events. */
export class Nodes extends APIResource {
  readonly reports: NodeReports;
  readonly jobs: NodeJobs;
  readonly result: NodeResult;
  readonly worktree: NodeWorktree;

  constructor(transport: Transport) {
    super(transport);
    this.reports = new NodeReports(transport);
    this.jobs = new NodeJobs(transport);
    this.result = new NodeResult(transport);
    this.worktree = new NodeWorktree(transport);
  }

  /** Creates a queued node (POST /v1/nodes). */
  create(params: NodeCreateParams, options?: RequestOptions): APIPromise<Node> {
    return this._transport.request('POST', pathOf('nodes.create'), { body: params }, options);
  }

  /** Nodes newest first, filtered by state, parent (`'none'`: roots), root, run or profile. */
  list(params: NodeListParams = {}, options?: RequestOptions): PagePromise<NodeList> {
    return this._transport.list(pathOf('nodes.list'), { ...params }, options);
  }

  retrieve(nodeId: string, options?: RequestOptions): APIPromise<Node> {
    return this._transport.request(
      'GET',
      pathOf('nodes.retrieve', { id: node(nodeId) }),
      {},
      options,
    );
  }

  /** Title, budgets or labels; raising the budget a node is parked at wakes it. */
  update(nodeId: string, params: NodeUpdateParams, options?: RequestOptions): APIPromise<Node> {
    const url = pathOf('nodes.update', { id: node(nodeId) });
    return this._transport.request('PATCH', url, { body: params }, options);
  }

  /** Cancels the node and its children, except promoted ones. */
  cancel(
    nodeId: string,
    params: NodeReasonParams = {},
    options?: RequestOptions,
  ): APIPromise<Node> {
    const url = pathOf('nodes.cancel', { id: node(nodeId) });
    return this._transport.request('POST', url, { body: params }, options);
  }

  /** Stops the turn in flight; the node waits for a message. */
  interrupt(
    nodeId: string,
    params: NodeReasonParams = {},
    options?: RequestOptions,
  ): APIPromise<Node> {
    const url = pathOf('nodes.interrupt', { id: node(nodeId) });
    return this._transport.request('POST', url, { body: params }, options);
  }

  /** Sends mail, read at the node's next turn; a waiting node wakes. */
  message(nodeId: string, params: NodeMessageParams, options?: RequestOptions): APIPromise<Mail> {
    const url = pathOf('nodes.message', { id: node(nodeId) });
    return this._transport.request('POST', url, { body: params }, options);
  }

  /** The outcome of a final node; `ConflictError` (409 invalid_state) while it is not final. */
  outcome(nodeId: string, options?: RequestOptions): APIPromise<NodeOutcome> {
    return this._transport.request(
      'GET',
      pathOf('nodes.outcome', { id: node(nodeId) }),
      {},
      options,
    );
  }

  /**
   * Waits until the node is final or `timeout_s` (default 300) passes, repeating the daemon's
   * bounded wait; answers `{ final, node }` either way.
   */
  waitForOutcome(
    nodeId: string,
    params: WaitParams = {},
    options?: RequestOptions,
  ): Promise<NodeWaitResult> {
    return waitFor(
      this._transport,
      pathOf('nodes.waitForOutcome', { id: node(nodeId) }),
      params,
      options,
    );
  }

  /**
   * Creates a node and waits for its outcome up to `timeout_s` (default 300): one server wait,
   * then `waitForOutcome` on the node it answered. A retried create (same Idempotency-Key)
   * answers the same node.
   */
  createAndWait(
    params: NodeCreateAndWaitParams,
    options?: RequestOptions,
  ): Promise<NodeWaitResult> {
    return startThenWait<NodeWaitResult>(
      this._transport,
      pathOf('nodes.createAndWait'),
      params,
      options,
      (first, left, rest) => this.waitForOutcome(first.node.id, left, rest),
    );
  }

  /**
   * Creates a node with an `output_schema`, waits like `createAndWait`, and answers the result
   * in `parsed` (null unless the node is done).
   */
  parse(params: NodeParseParams, options?: RequestOptions): Promise<NodeParseResult> {
    const url = pathOf('nodes.parse');
    return startParse<'node', Node>(
      this._transport,
      url,
      'node',
      params,
      options,
      (id, left, rest) => this.waitForOutcome(id, left, rest),
    );
  }

  /**
   * The node's events (its subtree's with `subtree: true`), backlog then live; resumable. Loop
   * over it for the raw events, or use its helpers: `on('text', …)`, `textStream` (its turns'
   * text as it is recorded), `finalOutcome()`, `finalText()`, `finalNode()`.
   */
  stream(nodeId: string, params: NodeStreamParams = {}, options?: StreamOptions): NodeStream<Node> {
    const url = pathOf('nodes.stream', { id: node(nodeId) });
    return openOutcomeStream(NodeStream<Node>, this._transport, url, { ...params }, options, {
      textNode: async () => nodeId,
      isOutcome: (e) => e.kind === 'node.outcome' && e.subject_id === nodeId,
      retrieve: (read) => this.retrieve(nodeId, read),
    });
  }

  /** A page of the node's events in seq order; `next_cursor` is the last seq. */
  events(
    nodeId: string,
    params: NodeEventsParams = {},
    options?: RequestOptions,
  ): PagePromise<NodeEventList> {
    const url = pathOf('nodes.events', { id: node(nodeId) });
    return this._transport.list(url, { ...params }, options);
  }

  /** Copies the node's conversation (through `through_turn`) into a new queued node. */
  fork(nodeId: string, params: NodeForkParams = {}, options?: RequestOptions): APIPromise<Node> {
    const url = pathOf('nodes.fork', { id: node(nodeId) });
    return this._transport.request('POST', url, { body: params }, options);
  }

  /** Queues a failed or cancelled node again with its history. */
  revive(
    nodeId: string,
    params: NodeReviveParams = {},
    options?: RequestOptions,
  ): APIPromise<Node> {
    const url = pathOf('nodes.revive', { id: node(nodeId) });
    return this._transport.request('POST', url, { body: params }, options);
  }

  /** Revives every failed (optionally cancelled) node, owner only. */
  reviveAll(
    params: NodeReviveAllParams = {},
    options?: RequestOptions,
  ): APIPromise<NodeReviveAllResult> {
    return this._transport.request('POST', pathOf('nodes.reviveAll'), { body: params }, options);
  }

  /** Detaches the node (and its subtree) into a root. */
  promote(nodeId: string, options?: RequestOptions): APIPromise<Node> {
    return this._transport.request(
      'POST',
      pathOf('nodes.promote', { id: node(nodeId) }),
      {},
      options,
    );
  }

  /** Attaches the node under `parent_id` (not itself nor a descendant). */
  demote(nodeId: string, params: NodeDemoteParams, options?: RequestOptions): APIPromise<Node> {
    const url = pathOf('nodes.demote', { id: node(nodeId) });
    return this._transport.request('POST', url, { body: params }, options);
  }

  /** Gives a done node a fresh task, keeping its id, profile and history. */
  recycle(nodeId: string, params: NodeRecycleParams, options?: RequestOptions): APIPromise<Node> {
    const url = pathOf('nodes.recycle', { id: node(nodeId) });
    return this._transport.request('POST', url, { body: params }, options);
  }

  /** A node ends its turn and waits for mail (node token, its own node). */
  yield(nodeId: string, params: NodeReasonParams = {}, options?: RequestOptions): APIPromise<Node> {
    const url = pathOf('nodes.yield', { id: node(nodeId) });
    return this._transport.request('POST', url, { body: params }, options);
  }

  /** A node waits for children, a human request or a timer (node token, its own node). */
  wait(nodeId: string, params: NodeWaitParams, options?: RequestOptions): APIPromise<Node> {
    const url = pathOf('nodes.wait', { id: node(nodeId) });
    return this._transport.request('POST', url, { body: params }, options);
  }

  /** Restarts the broker of the node's root from its last recorded turn. */
  relaunchRoot(nodeId: string, options?: RequestOptions): APIPromise<Node> {
    const url = pathOf('nodes.relaunchRoot', { id: node(nodeId) });
    return this._transport.request('POST', url, {}, options);
  }
}
