/**
 * Nodes (docs/nodes.md): the DTO, the bodies and queries of every `nodes` route, and the parts a
 * node carries: budgets, usage, outcome, what it waits on, mail, reports, jobs and turns.
 */
import { z } from 'zod';
import { WAIT_MAX_S } from '../limits.ts';
import { FINAL_STATES, NODE_STATES } from '../nodes/state-machine.ts';
import {
  absolutePathSchema,
  idSchema,
  LIST_LIMIT_MAX,
  listQuerySchema,
  nameSchema,
  queryBool,
  queryInt,
  scopeSchema,
  timestampSchema,
} from './common.ts';
import { eventsQuerySchema } from './events.ts';
import { modelChoiceSchema, modelRefSchema } from './models.ts';
import { networkPolicySchema } from './network.ts';
import { checkedAs } from './wire-form.ts';

export const nodeStateSchema = z.enum(NODE_STATES);
export const finalStateSchema = z.enum(FINAL_STATES);

/** Any JSON value (a request body is JSON, so nothing else can arrive). */
const jsonValue = z.unknown().describe('any JSON value');

/** A JSON Schema (2020-12) object; the daemon checks that it compiles. */
export const jsonSchemaObject = z
  .record(z.string(), z.unknown())
  .describe('a JSON Schema (2020-12) object');

export const METADATA_MAX_KEYS = 16;

/** Free-form labels for the caller's own bookkeeping; the daemon never interprets them. */
export const metadataSchema = checkedAs(
  z
    .record(z.string().min(1).max(64), z.string().max(512))
    .refine((m) => Object.keys(m).length <= METADATA_MAX_KEYS, {
      message: `at most ${METADATA_MAX_KEYS} metadata keys`,
    })
    .describe(`up to ${METADATA_MAX_KEYS} string labels`),
  { maxProperties: METADATA_MAX_KEYS },
);

// ── budgets and usage ────────────────────────────────────────────────────────────────────────

/** Limits per node; `null` = none. Reaching one parks the node `waiting` with a reason. */
export const budgetsSchema = z.object({
  max_turns: z.number().int().positive().nullable(),
  max_tokens: z.number().int().positive().nullable().describe('input plus output tokens'),
  max_cost_usd: z.number().positive().nullable(),
});

/** Budgets in a request: each optional; `null` removes that limit. */
export const budgetsInputSchema = z.strictObject({
  max_turns: z.number().int().min(1).max(1_000_000).nullable().optional(),
  max_tokens: z.number().int().min(1).max(1e12).nullable().optional(),
  max_cost_usd: z.number().positive().max(1e6).nullable().optional(),
});

export const usageSchema = z.object({
  turns: z.number().int().nonnegative(),
  input_tokens: z.number().int().nonnegative(),
  output_tokens: z.number().int().nonnegative(),
  cost_usd: z.number().nonnegative().describe('turns of a model without a known price count 0'),
});

// ── outcome ──────────────────────────────────────────────────────────────────────────────────

export const faultSchema = z.object({
  code: z.string(),
  message: z.string(),
  fatal: z.boolean(),
  at: timestampSchema,
});

/** What a final node ended with. */
export const outcomeSchema = z.object({
  state: finalStateSchema,
  result: jsonValue.describe(
    'the submitted result (matching output_schema when set); null if none',
  ),
  summary: z.string().nullable().describe('the submitted text summary'),
  error: z
    .object({ code: z.string(), message: z.string() })
    .nullable()
    .describe('why it failed or was cancelled'),
  finished_at: timestampSchema,
});
export type NodeOutcome = z.output<typeof outcomeSchema>;

/** `nodes.result.submit` and the broker's submit: a result, a summary, or both. */
export const resultSubmitBodySchema = checkedAs(
  z
    .strictObject({
      result: jsonValue
        .optional()
        .describe('required, and checked, when the node has an output_schema'),
      summary: z.string().max(100_000).optional(),
    })
    .refine((b) => b.result !== undefined || b.summary !== undefined, {
      message: 'submit a result, a summary, or both',
    }),
  { anyOf: [{ required: ['result'] }, { required: ['summary'] }] },
);
export type ResultSubmitBody = z.output<typeof resultSubmitBodySchema>;

// ── waits (their bound, WAIT_MAX_S, is in limits.ts) ─────────────────────────────────────────

const childrenIds = z.array(idSchema('node')).min(1).max(1000);

/**
 * `POST /v1/nodes/{id}/wait` (a node on itself). Mail always wakes a waiting node as well, so
 * a node waiting on children can still be told something.
 */
export const nodeWaitBodySchema = z.discriminatedUnion('for', [
  z.strictObject({
    for: z.literal('children'),
    node_ids: childrenIds.optional().describe('default: every child not yet final'),
    mode: z.enum(['all', 'any']).optional().describe("default 'all'"),
  }),
  z.strictObject({ for: z.literal('human'), request_id: idSchema('human_request') }),
  z.strictObject({ for: z.literal('timer'), seconds: z.number().int().min(1).max(31_536_000) }),
]);
export type NodeWaitBody = z.output<typeof nodeWaitBodySchema>;

/** What a `waiting` node waits on (the node's `waiting_on`). */
export const waitingOnSchema = z.discriminatedUnion('for', [
  z.object({ for: z.literal('mail') }).describe('after yield or interrupt'),
  z.object({
    for: z.literal('children'),
    node_ids: z.array(z.string()),
    mode: z.enum(['all', 'any']),
  }),
  z.object({ for: z.literal('human'), request_id: z.string() }),
  z.object({ for: z.literal('timer'), until: timestampSchema }),
  z
    .object({
      for: z.literal('budget'),
      budget: z.enum(['max_turns', 'max_tokens', 'max_cost_usd']),
    })
    .describe('parked at a budget; raising it (nodes.update) wakes the node'),
]);

// ── workspaces ───────────────────────────────────────────────────────────────────────────────

/**
 * What a git node's branch starts from: a branch, tag or commit of its repository. Letters,
 * digits and `._/-` only, no leading `-` (never read as an option) and no `..` (no range).
 */
export const gitBaseSchema = z
  .string()
  .min(1)
  .max(256)
  // No lookahead (RE2 and others lack it): a dot is always followed by another character but a
  // dot, save at the end, and the first character is no `-`.
  .regex(/^(?:[A-Za-z0-9_/]|\.[A-Za-z0-9_/-])(?:[A-Za-z0-9_/-]|\.[A-Za-z0-9_/-])*\.?$/)
  .describe('a branch, tag or commit: letters, digits and ._/- (no leading -, no ..)');

/**
 * A git workspace asked for (`nodes.create`, `runs.start`, a profile): the node's worktree is a
 * `git worktree` of `repo` on branch `svc/<node id>` instead of a plain directory.
 */
export const workspaceInputSchema = z.strictObject({
  repo: absolutePathSchema.describe(
    'a directory of a git work tree inside a svc:files:rw:user:<dir> the creator holds (the owner: any)',
  ),
  base: gitBaseSchema
    .optional()
    .describe(
      "what the node's branch starts from (default: the repository's HEAD at its first launch)",
    ),
});

/** A node's git workspace, as recorded at create (docs/nodes.md "Workspaces"). */
export const workspaceSchema = z.object({
  repo: z.string().describe("the repository's top-level work tree (its realpath)"),
  git_common_dir: z
    .string()
    .describe(
      "the repository's common git directory, recorded at create: what the node's sandbox mounts read-write besides its worktree",
    ),
  branch: z.string().describe('the branch its worktree is on: svc/<node id>'),
  base: z
    .string()
    .nullable()
    .describe("what the branch starts from; null = the repository's HEAD at the first launch"),
});

// ── the node ─────────────────────────────────────────────────────────────────────────────────

export const nodeSchema = z.object({
  id: idSchema('node'),
  parent_id: idSchema('node').nullable().describe('null for a root'),
  root_id: idSchema('node').describe('the root of its tree; its own id for a root'),
  run_id: idSchema('run').nullable().describe('the run whose tree it belongs to, if any'),
  app_id: z.string().nullable().describe('the app that created it; null = the owner'),
  profile: z.string(),
  title: z.string(),
  task: z.string(),
  state: nodeStateSchema,
  state_reason: z
    .string()
    .nullable()
    .describe('human-readable: why it waits, failed or was cancelled'),
  waiting_on: waitingOnSchema.nullable().describe('set while waiting'),
  scopes: z.array(z.string()).nullable().describe("its scope list; null = the owner's: everything"),
  model: modelRefSchema,
  budgets: budgetsSchema,
  usage: usageSchema,
  outcome: outcomeSchema.nullable().describe('set once final'),
  output_schema: jsonSchemaObject.nullable(),
  metadata: z.record(z.string(), z.string()),
  workspace: workspaceSchema
    .nullable()
    .describe('a git worktree of a repository; null = a plain-directory worktree'),
  network: networkPolicySchema
    .optional()
    .describe("the network its create gave its sandboxed commands; absent: its profile's"),
  created_at: timestampSchema,
  updated_at: timestampSchema,
  started_at: timestampSchema.nullable().describe('its first turn'),
  finished_at: timestampSchema.nullable(),
});
export type Node = z.output<typeof nodeSchema>;

export const nodeParamsSchema = z.object({ id: idSchema('node') });

export const TASK_MAX = 100_000;
export const TITLE_MAX = 200;

const taskSchema = z.string().min(1).max(TASK_MAX);
const titleSchema = z.string().min(1).max(TITLE_MAX);

const nodeCreateShape = {
  task: taskSchema,
  title: titleSchema.optional().describe('default: the first line of the task, cut to 80'),
  profile: nameSchema.optional().describe("default: a child's parent's, else 'default'"),
  parent_id: idSchema('node')
    .optional()
    .describe('default: the calling node for a node token, else none (a root)'),
  scopes: z
    .array(scopeSchema)
    .max(256)
    .optional()
    .describe("omitted: the creator's ceiling; given: must lie inside it (else 403 scope_missing)"),
  model: modelChoiceSchema
    .optional()
    .describe(
      "default: a child's parent's (unless it names a profile), then the profile's, then the configured default; one that cannot run now is refused (409 invalid_state, or 400 for a scripted model without a script)",
    ),
  budgets: budgetsInputSchema.optional().describe("default: the profile's"),
  output_schema: jsonSchemaObject
    .optional()
    .describe('the submitted result must match it; nodes.parse answers it parsed'),
  metadata: metadataSchema.optional(),
  workspace: workspaceInputSchema
    .optional()
    .describe("a git worktree instead of a plain directory; default: the profile's, else none"),
  network: networkPolicySchema
    .optional()
    .describe(
      "its sandboxed commands' network, within what its creator may grant; default: its profile's",
    ),
};

export const nodeCreateBodySchema = z.strictObject(nodeCreateShape);
export type NodeCreateBody = z.output<typeof nodeCreateBodySchema>;

const timeoutS = z
  .number()
  .int()
  .min(0)
  .max(WAIT_MAX_S)
  .optional()
  .describe(`seconds to wait before answering final: false (default 30, at most ${WAIT_MAX_S})`);

/** `POST /v1/nodes/create-and-wait`: create, then wait up to `timeout_s` for the outcome. */
export const nodeCreateAndWaitBodySchema = z.strictObject({
  ...nodeCreateShape,
  timeout_s: timeoutS,
});
export type NodeCreateAndWaitBody = z.output<typeof nodeCreateAndWaitBodySchema>;

/** `POST /v1/nodes/parse`: as create-and-wait with a required `output_schema`. */
export const nodeParseBodySchema = z.strictObject({
  ...nodeCreateShape,
  output_schema: jsonSchemaObject,
  timeout_s: timeoutS,
});
export type NodeParseBody = z.output<typeof nodeParseBodySchema>;

/** The answer of every wait: `final: false` when `timeout_s` passed first (wait again by id). */
export const nodeWaitResultSchema = z.object({ final: z.boolean(), node: nodeSchema });
/** `{ final, node }`: `final: false` when the wait ended first (the node id is in it). */
export type NodeWaitResult = z.output<typeof nodeWaitResultSchema>;

export const nodeParseResultSchema = z.object({
  final: z.boolean(),
  node: nodeSchema,
  parsed: jsonValue.describe("the result, matching output_schema; null unless final and 'done'"),
});
export type NodeParseResult = z.output<typeof nodeParseResultSchema>;

export const nodeWaitQuerySchema = z.object({
  timeout_s: queryInt(0, WAIT_MAX_S).optional().describe('default 30'),
});

/** `?state=queued,running` → the states. */
export const nodeStateListQuery = z
  .string()
  .regex(new RegExp(`^(${NODE_STATES.join('|')})(,(${NODE_STATES.join('|')}))*$`))
  .transform((s) => s.split(',') as z.output<typeof nodeStateSchema>[])
  .describe(`comma-separated states (${NODE_STATES.join(', ')})`);

export const nodeListQuerySchema = listQuerySchema.extend({
  // A cursor is the last id of the page before: anything else would read as the end of the list.
  after: idSchema('node').optional().describe('the next_cursor of the previous page'),
  state: nodeStateListQuery.optional(),
  parent_id: z
    .union([idSchema('node'), z.literal('none')])
    .optional()
    .describe("a node id: its children; 'none': roots only"),
  root_id: idSchema('node').optional().describe('every node of this tree'),
  run_id: idSchema('run').optional(),
  profile: nameSchema.optional(),
});
export type NodeListQuery = z.output<typeof nodeListQuerySchema>;

/** `PATCH /v1/nodes/{id}`: what may change besides state. Raising a budget wakes a node parked at it. */
export const nodeUpdateBodySchema = checkedAs(
  z
    .strictObject({
      title: titleSchema.optional(),
      budgets: budgetsInputSchema.optional(),
      metadata: metadataSchema.optional().describe('replaces the labels'),
    })
    .refine((b) => Object.keys(b).length > 0, { message: 'nothing to update' }),
  { minProperties: 1 },
);
export type NodeUpdateBody = z.output<typeof nodeUpdateBodySchema>;

/** Cancel, interrupt and yield: an optional human-readable reason (becomes `state_reason`). */
export const reasonBodySchema = z.strictObject({ reason: z.string().min(1).max(2000).optional() });
export type ReasonBody = z.output<typeof reasonBodySchema>;

export const messageBodySchema = z.strictObject({ text: z.string().min(1).max(TASK_MAX) });
export type MessageBody = z.output<typeof messageBodySchema>;

export const nodeForkBodySchema = z.strictObject({
  task: taskSchema.optional().describe('appended to the copied conversation as a user message'),
  title: titleSchema.optional(),
  through_turn: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe('copy turns 1..n; default all (0 = only the task)'),
  parent_id: idSchema('node')
    .nullable()
    .optional()
    .describe("default: the source's parent; null = a root"),
  scopes: z.array(scopeSchema).max(256).optional().describe("narrows the source's list"),
});
export type NodeForkBody = z.output<typeof nodeForkBodySchema>;

export const nodeReviveBodySchema = z.strictObject({
  message: z.string().min(1).max(TASK_MAX).optional().describe('mail delivered when it resumes'),
});
export type NodeReviveBody = z.output<typeof nodeReviveBodySchema>;

export const nodeReviveAllBodySchema = z.strictObject({
  states: checkedAs(
    z
      .array(z.enum(['failed', 'cancelled']))
      .min(1)
      .refine((states) => new Set(states).size === states.length, 'each state at most once'),
    { uniqueItems: true },
  )
    .optional()
    .describe("default ['failed']: a cancellation was somebody's decision"),
  root_id: idSchema('node').optional().describe('only this tree'),
});
export type NodeReviveAllBody = z.output<typeof nodeReviveAllBodySchema>;

export const nodeReviveAllResultSchema = z.object({
  count: z.number().int().nonnegative(),
  node_ids: z.array(idSchema('node')),
});
export type NodeReviveAllResult = z.output<typeof nodeReviveAllResultSchema>;

export const nodeDemoteBodySchema = z.strictObject({
  parent_id: idSchema('node').describe('the new parent; not the node itself nor a descendant'),
});
export type NodeDemoteBody = z.output<typeof nodeDemoteBodySchema>;

export const nodeRecycleBodySchema = z.strictObject({
  task: taskSchema,
  title: titleSchema.optional(),
  budgets: budgetsInputSchema.optional().describe('usage starts again from zero'),
});
export type NodeRecycleBody = z.output<typeof nodeRecycleBodySchema>;

// ── events of one node (or its subtree) ─────────────────────────────────────────────────────

const subtree = queryBool.optional().describe("include its descendants' events (default false)");

// A page is no stream: `follow` has nothing to end.
export const nodeEventsQuerySchema = eventsQuerySchema.omit({ follow: true }).extend({
  limit: queryInt(1, LIST_LIMIT_MAX).optional(),
  subtree,
});
export type NodeEventsQuery = z.output<typeof nodeEventsQuerySchema>;

export const nodeStreamQuerySchema = eventsQuerySchema.extend({ subtree });

// ── mail, reports, jobs ─────────────────────────────────────────────────────────────────────

export const mailSchema = z.object({
  seq: z.number().int().positive().describe('per node, in sending order'),
  node_id: idSchema('node'),
  from: z.object({
    kind: z.enum(['owner', 'app', 'node']),
    id: z.string().nullable().describe('the app or node id; null for the owner'),
  }),
  text: z.string(),
  state: z.enum(['pending', 'claimed', 'acknowledged']),
  created_at: timestampSchema,
  claimed_at: timestampSchema.nullable(),
  acknowledged_at: timestampSchema.nullable(),
});
export type Mail = z.output<typeof mailSchema>;

export const reportSchema = z.object({
  seq: z.number().int().positive().describe('per node'),
  node_id: idSchema('node'),
  text: z.string(),
  data: jsonValue.describe('structured detail; null if none'),
  created_at: timestampSchema,
});
export type Report = z.output<typeof reportSchema>;

export const JOB_STATES = ['running', 'done', 'failed', 'cancelled'] as const;

export const jobSchema = z.object({
  id: idSchema('job'),
  node_id: idSchema('node'),
  kind: z.enum(['bash', 'tool']),
  title: z.string(),
  state: z.enum(JOB_STATES),
  exit_code: z.number().int().nullable(),
  started_at: timestampSchema,
  finished_at: timestampSchema.nullable(),
});
export type Job = z.output<typeof jobSchema>;

export const jobParamsSchema = z.object({ id: idSchema('node'), job_id: idSchema('job') });

/**
 * A node's worktree, `SVC_HOME/worktrees/<node id>`: the directory its broker works in, made at
 * its first launch (a plain directory, or a `git worktree` for a node with a workspace) and kept
 * across relaunches until it is closed or abandoned.
 */
export const worktreeSchema = z.object({
  node_id: idSchema('node'),
  path: z.string().describe('absolute path of the directory on the daemon host'),
  exists: z.boolean().describe('false once closed or abandoned (a later launch makes it anew)'),
  removed: z
    .boolean()
    .describe('whether this call removed it; false when there was none (removed already)'),
  branch: z
    .object({
      name: z.string().describe('svc/<node id>'),
      repo: z.string(),
      kept: z
        .boolean()
        .describe('whether the branch is still there: close keeps it, abandon deletes it'),
    })
    .nullable()
    .describe("a git node's branch; null for a plain-directory worktree"),
});
export type Worktree = z.output<typeof worktreeSchema>;

// ── turns (the trace) ───────────────────────────────────────────────────────────────────────

/** A message added to the conversation before a turn: the task, mail, or a daemon note. */
export const turnMessageSchema = z.object({
  role: z.enum(['user', 'system']),
  text: z.string(),
  mail_seq: z.number().int().positive().nullable().describe('the mail it delivered, if any'),
});
export type TurnMessage = z.output<typeof turnMessageSchema>;

export const toolCallSchema = z.object({
  id: z.string().describe("the model's tool call id"),
  name: z.string(),
  input: jsonValue,
  status: z.enum(['pending', 'ok', 'error']),
  output: jsonValue.describe('null while pending'),
  job_id: idSchema('job').nullable(),
  finished_at: timestampSchema.nullable(),
});
export type ToolCall = z.output<typeof toolCallSchema>;

export const turnUsageSchema = z.object({
  input_tokens: z.number().int().nonnegative(),
  output_tokens: z.number().int().nonnegative(),
});

/** One model turn: what was added, what the model answered, what it cost. */
export const turnSchema = z.object({
  node_id: idSchema('node'),
  index: z.number().int().positive().describe('1-based, per node'),
  model: modelRefSchema,
  input: z.array(turnMessageSchema),
  text: z.string(),
  tool_calls: z.array(toolCallSchema),
  usage: turnUsageSchema,
  cost_usd: z.number().nonnegative().nullable().describe('null when the price is unknown'),
  finish_reason: z.string(),
  started_at: timestampSchema,
  finished_at: timestampSchema,
});
export type Turn = z.output<typeof turnSchema>;

export const turnListQuerySchema = listQuerySchema.extend({
  node_id: idSchema('node').optional().describe('only this node of the tree'),
});
export type TurnListQuery = z.output<typeof turnListQuerySchema>;
