/**
 * The broker's control plane (SPEC "Routes without a client method"): the routes a node's own
 * broker calls with its node token, and only for its node. The broker records each turn and each
 * tool result here before acting on it, so the daemon's record is never behind the conversation
 * and a relaunched broker resumes from it. Every answer carries a `directive`: how the daemon
 * tells a broker to stop, park or cancel jobs without a second channel.
 *
 * Secrets never travel on these routes: the model key and the profile env reach the broker once,
 * on its stdin at spawn (`brokerLaunchSchema`).
 */
import { z } from 'zod';
import { WAIT_MAX_S } from '../limits.ts';
import { absolutePathSchema, idSchema, queryInt, timestampSchema } from './common.ts';
import { modelRefSchema, scriptedTurnSchema } from './models.ts';
import { networkPolicySchema } from './network.ts';
import {
  jobSchema,
  mailSchema,
  nodeSchema,
  resultSubmitBodySchema,
  toolCallSchema,
  turnSchema,
  turnUsageSchema,
  workspaceSchema,
} from './nodes.ts';
import { pluginCommandSchema, pluginSchema } from './plugins.ts';

/** What the daemon wants the broker to do next. */
export const directiveSchema = z.object({
  action: z
    .enum(['continue', 'interrupt', 'park', 'cancel'])
    .describe(
      'continue; interrupt: stop the turn in flight and exit (the node waits for mail); park: a budget was reached, exit; cancel: stop everything and exit',
    ),
  reason: z.string().nullable(),
  cancel_jobs: z.array(idSchema('job')).describe('jobs to stop'),
});
export type Directive = z.output<typeof directiveSchema>;

/**
 * A node's sandbox plan (the daemon's `sandbox/plan.ts`): the layers of the person's files its
 * commands see (and its file tools reach), its network, its bounds, and what the host can do.
 */
export const sandboxPlanSchema = z.strictObject({
  mode: z.enum(['on', 'off']),
  host: z.strictObject({
    ready: z.boolean(),
    bwrap: z.string().nullable(),
    version: z.string().nullable(),
    reason: z.string().nullable(),
    fix: z.string().nullable(),
    cgroup: z
      .strictObject({ kind: z.enum(['v1', 'v2']), pids: z.string(), memory: z.string().nullable() })
      .nullable(),
    prlimit: z.string().nullable(),
    executor: z
      .strictObject({ source: z.string(), binary: z.string() })
      .nullable()
      .describe("the C executor of the node's sandbox: its source and where it is built"),
  }),
  layers: z.array(z.strictObject({ path: z.string(), kind: z.enum(['rw', 'ro', 'hide']) })),
  network: networkPolicySchema,
  home: z.string(),
  pids: z.number().int().positive(),
  memoryBytes: z.number().int().positive(),
  env: z.record(z.string(), z.string()).describe("the profile's command_env values"),
});

/**
 * Given to the broker process on stdin when the daemon spawns it; never an HTTP body or answer.
 * It is the one place the model key and the profile env values leave the daemon.
 */
export const brokerLaunchSchema = z.strictObject({
  node_id: idSchema('node'),
  token: z.string().describe("the broker's node token (svc_node_…)"),
  socket_path: absolutePathSchema.describe("the daemon's unix socket"),
  home: absolutePathSchema
    .optional()
    .describe("the daemon's home, which the files tools keep a node with a scope list out of"),
  cwd: absolutePathSchema
    .optional()
    .describe("the node's worktree, the broker's working directory (default: where it started)"),
  workspace: workspaceSchema
    .nullable()
    .optional()
    .describe(
      "the node's git workspace, `cwd` being a git worktree of it (its sandbox mounts `worktreeMounts` of it); none: a plain directory",
    ),
  viewer_socket_path: absolutePathSchema
    .optional()
    .describe(
      'where the broker streams its transcript to host-local viewers (`nodes.attach`); none: no viewers',
    ),
  model: z.strictObject({
    ...modelRefSchema.shape,
    api_key: z.string().optional(),
    base_url: z.string().optional(),
    script: z.array(scriptedTurnSchema).optional(),
  }),
  env: z.record(z.string(), z.string()).describe('the profile env store, for plugin calls'),
  sandbox: sandboxPlanSchema
    .optional()
    .describe("how the node's commands are confined; none: its bash refuses to run (fail closed)"),
});

/** `POST …/broker/claim`: the broker binds itself to its node (queued → running). */
export const brokerClaimBodySchema = z.strictObject({
  pid: z.number().int().positive(),
  broker_version: z.string().min(1).max(100),
});

/**
 * An installed plugin as the broker calls it: the commands of the groups it offers (SPEC,
 * "Installing a plugin": `origin + rest.path`), and how to authenticate.
 */
export const brokerPluginSchema = z.object({
  name: pluginSchema.shape.name,
  origin: pluginSchema.shape.origin,
  auth: pluginSchema.shape.auth.describe(
    '`directory`: each call asks the daemon for a token (`broker.pluginToken.mint`)',
  ),
  auth_env: pluginSchema.shape.auth_env.describe(
    "the launch env's variable holding the shared token (`token` mode)",
  ),
  commands: z.array(pluginCommandSchema).describe('those of the groups in `tools`'),
});

export type BrokerPlugin = z.output<typeof brokerPluginSchema>;

export const brokerSessionSchema = z.object({
  node: nodeSchema,
  system_prompt: z.string().nullable(),
  tools: z
    .array(z.string())
    .describe(
      'the tools to offer the model (scopes ∩ the profile list): built-ins, then `<plugin>:<group>`',
    ),
  plugins: z.array(brokerPluginSchema).describe('the installed plugins of the groups in `tools`'),
  turns: z.array(turnSchema).describe('the recorded conversation to resume from, oldest first'),
  directive: directiveSchema,
  mail: z
    .array(mailSchema)
    .optional()
    .describe(
      "the node's unacknowledged mail, claimed for its next turn as `mail/claim` claims it (when the directive is `continue`)",
    ),
});

/** `POST …/broker/reports`: a progress report for the parent and the canvas. */
export const reportBodySchema = z.strictObject({
  text: z.string().min(1).max(100_000),
  data: z.unknown().optional(),
});
export type ReportBody = z.output<typeof reportBodySchema>;

/**
 * A job to start for the call that runs next (`next_job` of a turn or tool-result record), so
 * the call's command need not wait for a request of its own before it starts: started in the
 * record's transaction only when its directive is `continue` and the record is not a repeat,
 * and answered as `job` (none answered: the broker starts it with `broker.jobs.record`).
 */
export const nextJobSchema = z.strictObject({
  kind: z.enum(['bash', 'tool']),
  title: z.string().min(1).max(500),
});
export type NextJob = z.output<typeof nextJobSchema>;

/**
 * `POST …/broker/turns`: one model turn, recorded before its tool calls run. `index` must be the
 * next one (a repeat of the last recorded turn with the same body answers it again; any other
 * index is 409 `conflict`), so a retried record never doubles a turn. The mail its input names
 * (`mail_seq`) is acknowledged in the same transaction: recorded exactly once, never delivered
 * again.
 */
export const turnRecordBodySchema = z.strictObject({
  index: z.number().int().positive(),
  model: z.strictObject(modelRefSchema.shape),
  input: z
    .array(
      z.strictObject({
        role: z.enum(['user', 'system']),
        text: z.string().max(1_000_000),
        mail_seq: z.number().int().positive().optional(),
      }),
    )
    .max(1000),
  text: z.string().max(1_000_000),
  tool_calls: z
    .array(
      z.strictObject({
        id: z.string().min(1).max(200),
        name: z.string().min(1).max(200),
        input: z.unknown().optional(),
        error: z
          .string()
          .max(10_000)
          .optional()
          .describe('the call cannot run (unknown tool, bad JSON)'),
      }),
    )
    .max(256),
  usage: z.strictObject(turnUsageSchema.shape),
  cost_usd: z.number().nonnegative().nullable(),
  finish_reason: z.string().min(1).max(64),
  started_at: timestampSchema,
  finished_at: timestampSchema,
  next_job: nextJobSchema.optional().describe('the job its first call runs as'),
  results: z
    .array(
      z.strictObject({
        tool_call_id: z.string().min(1).max(200),
        status: z.enum(['ok', 'error']),
        output: z.unknown(),
        report: reportBodySchema.optional(),
        submit: resultSubmitBodySchema
          .optional()
          .describe(
            "the outcome the call submits (the `submit` tool), as `broker.result.submit` takes it: the node is done with its turn, in the same transaction, the calls after it not run; refused (the node's output_schema), the call is settled as an error saying why and the node runs on",
          ),
      }),
    )
    .max(256)
    .optional()
    .describe(
      "the results of calls whose whole effect is a record of the daemon's (a `report`, a `submit`), settled with the turn as `broker.toolResults.record` would settle them: each names a call of this turn, once",
    ),
  claim_mail: z
    .boolean()
    .optional()
    .describe(
      "with `results` that settle every call: answers `mail` for the next turn, as a last result's `claim_mail` does, when the directive is `continue`",
    ),
});
export type TurnRecordBody = z.output<typeof turnRecordBodySchema>;

/** The recorded turn; `directive.action` is `park` when a turn without calls reached a budget. */
export const turnRecordResultSchema = z.object({
  turn: turnSchema.describe('with its calls settled by `results`'),
  directive: directiveSchema,
  job: jobSchema.optional().describe('started for `next_job`'),
  mail: z.array(mailSchema).optional().describe('claimed for the next turn (`claim_mail`)'),
});

/** How many mails a claim takes when it names no `limit`. */
export const MAIL_CLAIM_DEFAULT = 50;

/**
 * `POST …/broker/tool-results`: a tool call's result, recorded before the next turn. What a
 * broker would otherwise send in requests of their own comes with it, in the same transaction:
 * the end of the job the call ran as (`job_end`, as `broker.jobs.record` settles it) and, with the
 * turn's last result, the claim of the mail its next turn reads (`claim_mail`).
 */
export const toolResultBodySchema = z.strictObject({
  turn_index: z.number().int().positive(),
  tool_call_id: z.string().min(1).max(200),
  status: z.enum(['ok', 'error']),
  output: z.unknown().describe('what goes back to the model'),
  job_id: idSchema('job').optional(),
  job_end: z
    .strictObject({
      state: z.enum(['done', 'failed', 'cancelled']),
      exit_code: z.number().int().nullable().optional(),
    })
    .optional()
    .describe('settles job `job_id` (required with it); a job already ended is left as it is'),
  claim_mail: z
    .boolean()
    .optional()
    .describe(
      "answers `mail`: the node's unacknowledged mail, claimed as `mail/claim` claims it, when the directive is `continue`",
    ),
  report: reportBodySchema
    .optional()
    .describe('the progress report the call makes (the `report` tool), created with its result'),
  next_job: nextJobSchema.optional().describe("the job the turn's next call runs as"),
});
export type ToolResultBody = z.output<typeof toolResultBodySchema>;

export const toolResultRecordSchema = z.object({
  tool_call: toolCallSchema,
  directive: directiveSchema,
  mail: z.array(mailSchema).optional().describe('claimed for the next turn (`claim_mail`)'),
  job: jobSchema.optional().describe('started for `next_job`'),
});

/**
 * `POST …/broker/faults`: provider errors past the retry budget, a tool crash, a script running
 * out. `fatal` fails the node (`fail`); otherwise the fault is recorded and counted against the
 * relaunch budget.
 */
export const faultBodySchema = z.strictObject({
  code: z
    .string()
    .regex(/^[a-z][a-z0-9_]{0,63}$/)
    .describe('e.g. provider_error, auth_failed, script_exhausted, tool_crash'),
  message: z.string().min(1).max(10_000),
  fatal: z.boolean(),
});
export type FaultBody = z.output<typeof faultBodySchema>;

export const faultRecordResultSchema = z.object({ node: nodeSchema, directive: directiveSchema });

/** `POST …/broker/jobs`: start a job (no `id`) or settle one (with its `id`). */
export const jobRecordBodySchema = z.discriminatedUnion('state', [
  z.strictObject({
    state: z.literal('running'),
    kind: z.enum(['bash', 'tool']),
    title: z.string().min(1).max(500),
  }),
  z.strictObject({
    state: z.enum(['done', 'failed', 'cancelled']),
    id: idSchema('job'),
    exit_code: z.number().int().nullable().optional(),
  }),
]);
export type JobRecordBody = z.output<typeof jobRecordBodySchema>;

export const directiveQuerySchema = z.object({
  wait_s: queryInt(0, WAIT_MAX_S)
    .optional()
    .describe('hold the answer until the directive is not continue, or this many seconds pass'),
});

/** `POST …/mail/claim`: pending mail, plus mail claimed earlier and never acknowledged. */
export const mailClaimBodySchema = z.strictObject({
  limit: z.number().int().min(1).max(200).optional().describe(`default ${MAIL_CLAIM_DEFAULT}`),
});

export const mailClaimResultSchema = z.object({ data: z.array(mailSchema) });

/** `POST …/mail/acknowledge`: the claimed mail is in a recorded turn; never delivered again. */
export const mailAcknowledgeBodySchema = z.strictObject({
  seqs: z.array(z.number().int().positive()).min(1).max(200),
});

export const mailAcknowledgeResultSchema = z.object({
  acknowledged: z.number().int().nonnegative(),
});

/** `POST …/attach` (owner): the host-local viewer socket of a node's broker. */
export const attachResultSchema = z.object({
  node_id: idSchema('node'),
  socket_path: absolutePathSchema,
});
