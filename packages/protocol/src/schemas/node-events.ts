/**
 * The event kinds of nodes and runs, with their payloads. They are rows of the one event log
 * (`eventSchema`, DESIGN §5 "Events"), written in the same transaction as the change they report;
 * `nodes.events`/`runs.events` page them and `nodes.stream`/`runs.stream` stream them as SSE.
 * `subject_id` is the node id for `node.*` and the run id for `run.*`.
 */
import { z } from 'zod';
import { NODE_ACTIONS } from '../nodes/state-machine.ts';
import { idSchema } from './common.ts';
import { eventSchema } from './events.ts';
import {
  budgetsSchema,
  faultSchema,
  jobSchema,
  mailSchema,
  nodeStateSchema,
  outcomeSchema,
  reportSchema,
  toolCallSchema,
  turnSchema,
} from './nodes.ts';
import { runQuestionEventSchema } from './questions.ts';
import { runSchema } from './runs.ts';

const nodeId = idSchema('node');
const runId = idSchema('run');

export const nodeEventPayloads = {
  /** Every state change, creation (`from: null`) included. */
  'node.state': z.object({
    node_id: nodeId,
    from: nodeStateSchema.nullable(),
    to: nodeStateSchema,
    action: z.enum(NODE_ACTIONS),
    reason: z.string().nullable(),
    tools: z
      .array(z.string())
      .optional()
      .describe(
        'on `start`: the tool names the model is offered, built-ins then plugin commands (`acme_tickets_create`)',
      ),
  }),
  /** Changes besides state: title, budgets, labels, place in the tree (promote, demote). */
  'node.updated': z.object({
    node_id: nodeId,
    changes: z.object({
      title: z.string().optional(),
      budgets: budgetsSchema.optional(),
      metadata: z.record(z.string(), z.string()).optional(),
      parent_id: nodeId.nullable().optional(),
      root_id: nodeId.optional(),
    }),
  }),
  /** A recorded model turn (tool calls still pending). */
  'node.turn': z.object({ node_id: nodeId, turn: turnSchema }),
  /** A tool call's recorded result. */
  'node.tool': z.object({
    node_id: nodeId,
    turn_index: z.number().int().positive(),
    tool_call: toolCallSchema,
  }),
  'node.mail': z.object({ node_id: nodeId, mail: mailSchema }),
  'node.report': z.object({ node_id: nodeId, report: reportSchema }),
  'node.job': z.object({ node_id: nodeId, job: jobSchema }),
  'node.fault': z.object({ node_id: nodeId, fault: faultSchema }),
  /** The node became final; repeated as `run.outcome` for a run's root. */
  'node.outcome': z.object({ node_id: nodeId, outcome: outcomeSchema }),
} as const;

export const runEventPayloads = {
  'run.started': z.object({ run: runSchema }),
  /** The root changed state (mirrors its `node.state`). */
  'run.state': z.object({
    run_id: runId,
    node_id: nodeId,
    from: nodeStateSchema.nullable(),
    to: nodeStateSchema,
    reason: z.string().nullable(),
  }),
  'run.renamed': z.object({ run_id: runId, title: z.string() }),
  'run.outcome': z.object({ run_id: runId, outcome: outcomeSchema }),
  'run.deleted': z.object({ run_id: runId }),
  /** A node of the run asked a human request: the app's handle on it (`client.questions`). */
  'run.question': runQuestionEventSchema,
} as const;

export const NODE_EVENT_KINDS = Object.keys(
  nodeEventPayloads,
) as (keyof typeof nodeEventPayloads)[];
export const RUN_EVENT_KINDS = Object.keys(runEventPayloads) as (keyof typeof runEventPayloads)[];

type Payloads = typeof nodeEventPayloads & typeof runEventPayloads;
export type NodeEventKind = keyof Payloads;

function typed<K extends NodeEventKind>(kind: K, payload: Payloads[K]) {
  return eventSchema.extend({ kind: z.literal(kind), payload });
}

const allPayloads: Payloads = { ...nodeEventPayloads, ...runEventPayloads };

const typedEvents = (Object.keys(allPayloads) as NodeEventKind[]).map((kind) =>
  typed(kind, allPayloads[kind]),
);

/**
 * One event of a node or run stream: a known kind with its payload, or any other event (a newer
 * daemon may add kinds; clients must accept what they do not know).
 */
export const nodeEventSchema = z.union([...typedEvents, eventSchema]);
export type NodeEvent = z.output<typeof nodeEventSchema>;

/** The payload schema of a known kind, or `undefined`. */
export function nodeEventPayloadSchema(kind: string): z.ZodType | undefined {
  return Object.hasOwn(allPayloads, kind) ? allPayloads[kind as NodeEventKind] : undefined;
}
