/**
 * `BrokerPort`: everything a broker asks of the daemon, as the agent loop sees it. The loop knows
 * nothing about HTTP; `./http-port.ts` binds this interface to the broker control plane
 * (`brokerRoutes` and the node-token `nodes` routes of `@svc/protocol`) over the unix socket
 * with the node's token, and tests bind it to an in-memory daemon. The shapes are the
 * protocol's wire DTOs (snake_case JSON, turn indexes from 1).
 *
 * The daemon is the sole writer: the broker records each turn before acting on it and each tool
 * result before the next model call, so a relaunched broker resumes from what is recorded.
 * Records answer with a `directive` (continue, interrupt, park, cancel) the loop obeys.
 *
 * A call the daemon refuses (a 4xx) rejects with an `ApiError` carrying its code; anything else
 * (the daemon unreachable, a 5xx) rejects with another error. Tools turn a refusal into an error
 * result the model reads; the loop treats anything else as a fault.
 */

import type {
  Node as BrokerNode,
  brokerSessionSchema,
  Directive,
  faultBodySchema,
  HumanRequest,
  humanRequestCreateBodySchema,
  Job,
  jobRecordBodySchema,
  listOf,
  Mail,
  MemoryDocument,
  memoryDocumentSummarySchema,
  memoryGetQuerySchema,
  memoryListQuerySchema,
  memoryWriteBodySchema,
  nextJobSchema,
  nodeCreateBodySchema,
  NodeOutcome as Outcome,
  ToolCall as RecordedToolCall,
  reportBodySchema,
  resultSubmitBodySchema,
  Turn,
  toolResultBodySchema,
  turnRecordBodySchema,
} from '@svc/protocol';
import type { z } from 'zod';
import type { SandboxPlan } from '../sandbox/plan.ts';

// The protocol's DTOs under the names the broker has always used; a recorded turn carries
// each tool call's status (`pending` until its result is recorded).
export type { BrokerNode, Directive, RecordedToolCall, Turn };
/** What the broker records for a turn. */
export type TurnRecord = z.input<typeof turnRecordBodySchema>;
export type ToolResultRecord = z.input<typeof toolResultBodySchema>;
export type { Mail };
export type FaultReport = z.input<typeof faultBodySchema>;
export type ChildSpec = Omit<z.input<typeof nodeCreateBodySchema>, 'parent_id'>;
export type ResultSubmission = z.input<typeof resultSubmitBodySchema>;
export type ReportInput = z.input<typeof reportBodySchema>;
export type { Outcome };
export type HumanAsk = z.input<typeof humanRequestCreateBodySchema>;
export type { HumanRequest, MemoryDocument };
export type MemoryPage = z.output<ReturnType<typeof listOf<typeof memoryDocumentSummarySchema>>>;
/** Query fields as the wire carries them (strings), as the route reads them. */
export type MemoryRef = z.input<typeof memoryGetQuerySchema>;
export type MemoryListQuery = z.input<typeof memoryListQuerySchema>;
export type MemoryWrite = z.input<typeof memoryWriteBodySchema>;
export type JobRecord = z.input<typeof jobRecordBodySchema>;
export type JobStart = z.input<typeof nextJobSchema>;
export type { Job };

/** What `load()` answers: the broker session (node, tools, recorded turns, directive). */
export interface BrokerLoad extends z.output<typeof brokerSessionSchema> {
  /** The absolute directory `bash` runs in when a call names none (the node's worktree). */
  cwd: string;
  /** The daemon's home: the files tools keep a node with a scope list out of it. */
  home?: string | undefined;
  /**
   * How the node's commands are confined, and so what its file tools reach (the launch's
   * `sandbox`); none: its `bash` refuses to run and its file tools reach its worktree only.
   */
  sandbox?: SandboxPlan | undefined;
}

export type WaitMode = 'all' | 'any';

export type WaitChildrenAnswer =
  /** Every child waited for has ended (`all`), or at least one has (`any`). */
  | { ready: true; children: { id: string; outcome: Outcome }[] }
  /** The daemon has parked the node until they end, in the same transaction as the check. */
  | { ready: false; pending: string[] };

export interface BrokerPort {
  /** Binds the broker to its node and answers what it resumes from. */
  load(): Promise<BrokerLoad>;
  /** A token for one call of a directory-mode plugin's group, signed by the daemon's directory. */
  pluginToken(plugin: string, group: string): Promise<string>;
  /**
   * Records turn `index` (the next one) before its tool calls run, acknowledging the mail its
   * input holds. Recording the last recorded index again answers the first record unchanged: the
   * broker acts on the turn answered. `results` settle calls whose whole effect is a record of the
   * daemon's with the turn (`claim_mail` then claims the next turn's mail, answered as `mail`).
   */
  recordTurn(turn: TurnRecord): Promise<{
    turn: Turn;
    directive: Directive;
    job?: Job | undefined;
    mail?: Mail[] | undefined;
  }>;
  /**
   * Idempotent by tool call id: a second record answers the first. `job_end` settles the call's
   * job with it; `claim_mail` answers `mail` as `claimMail` would, when the directive is
   * `continue` (the turn's last result, so its next turn needs no request of its own). `report`
   * is made with the result (once: a repeat makes none). `next_job` (here and in `recordTurn`)
   * starts the job the next call runs as, answered as `job` when it started (none: the tool
   * starts its own with `recordJob`).
   */
  recordToolResult(result: ToolResultRecord): Promise<{
    tool_call: RecordedToolCall;
    directive: Directive;
    mail?: Mail[] | undefined;
    job?: Job | undefined;
  }>;
  /** Pending mail plus mail claimed earlier (by a broker that died) and never acknowledged. */
  claimMail(): Promise<Mail[]>;
  /**
   * The mail is in a recorded turn: never delivered again. `recordTurn` acknowledges its own
   * turn's mail; this is for mail a broker that died recorded but never acknowledged.
   */
  ackMail(seqs: number[]): Promise<void>;
  /** `idempotencyKey` makes a repeat (a relaunch re-running the call) answer the first child. */
  spawnChild(spec: ChildSpec, idempotencyKey: string): Promise<BrokerNode>;
  /** Sends mail to a node of the tree. Idempotent by key, like `spawnChild`. */
  messageNode(nodeId: string, text: string, idempotencyKey: string): Promise<Mail>;
  /** `'all'`: every child of the node. */
  waitChildren(ids: string[] | 'all', mode: WaitMode): Promise<WaitChildrenAnswer>;
  /**
   * Stores the outcome; the node is `done`. The submit call's own tool result is recorded right
   * after: the daemon takes it though the node is done (the loop does not depend on it).
   */
  submitResult(submission: ResultSubmission): Promise<void>;
  /** Opens a human request as this node. Idempotent by key, like `spawnChild`. */
  askHuman(ask: HumanAsk, idempotencyKey: string): Promise<HumanRequest>;
  /**
   * Parks the node `waiting` on its human request (`nodes.wait`); the mail that tells it the
   * request closed wakes it (at once when that mail already waits).
   */
  waitHuman(requestId: string): Promise<void>;
  report(report: ReportInput): Promise<void>;
  /** A memory document, as `memory.get` answers this node's token (a hidden one is 404). */
  memoryRead(ref: MemoryRef): Promise<MemoryDocument>;
  /** A page of a space's documents, as `memory.list` answers this node's token. */
  memoryList(query: MemoryListQuery): Promise<MemoryPage>;
  /** Creates or replaces a document as this node. Idempotent by key, like `spawnChild`. */
  memoryWrite(body: MemoryWrite, idempotencyKey: string): Promise<MemoryDocument>;
  /**
   * Parks the node `waiting` for mail with a human-readable reason (`nodes.yield`). Budgets need
   * no call: the daemon parks the node itself and answers `park` to the record that did it.
   */
  park(reason: string): Promise<void>;
  /** Records a fault; a `fatal` one fails the node, others count against its relaunch budget. */
  fault(report: FaultReport): Promise<void>;
  /** Records a job of this node: `running` as it starts (the answer names it), then its end. */
  recordJob(job: JobRecord): Promise<Job>;
  /**
   * The node's directive, held up to `waitS` seconds while it is a bare `continue` with no job
   * to cancel (`broker.directive.get`); `signal` gives up the wait.
   */
  directive(waitS: number, signal: AbortSignal): Promise<Directive>;
}
