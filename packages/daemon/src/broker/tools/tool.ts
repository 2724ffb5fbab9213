/**
 * What a broker tool is: a name, the scope that allows it, its input as a zod schema (which gives
 * both the JSON Schema the model sees and the check the input must pass before the tool runs),
 * and `run`. A tool never decides the node's state itself: it tells the loop, through its
 * outcome, when the loop must stop after the call.
 */
import { BUILTIN_TOOLS, type BuiltinToolName } from '@svc/protocol';
import type { JSONSchema7 } from 'ai';
import { z } from 'zod';
import type { ToolSpec } from '../../model-access/model-turn.ts';
import type { SandboxPlan } from '../../sandbox/plan.ts';
import type { LoopExit } from '../loop-exit.ts';
import type {
  BrokerNode,
  BrokerPort,
  Job,
  JobStart,
  ReportInput,
  ResultSubmission,
} from '../port.ts';

export interface ToolContext {
  node: BrokerNode;
  port: BrokerPort;
  /** The absolute directory `bash` runs in when a call names none. */
  cwd: string;
  /** The daemon's home, which the files tools fence off (`FilesAccess.home`). */
  home?: string | undefined;
  /** The node's sandbox: its commands run in it, its file tools see what it shows. */
  sandbox?: SandboxPlan | undefined;
  /** Aborted by cancel or interrupt: a tool stops at once (and kills what it started). */
  signal: AbortSignal;
  /** Unique per call of this node and stable across relaunches, for idempotent side effects. */
  idempotencyKey: string;
  /**
   * The job this call runs as, started with the record before it (`JobStart`, the tool's `job`);
   * none: the tool starts its own.
   */
  job?: Job | undefined;
}

/** How a call's job ended, recorded with the call's result. */
export interface JobEnd {
  state: 'done' | 'failed' | 'cancelled';
  exit_code: number | null;
}

/** The loop stops once this call's result is recorded, parking the node first when asked. */
export interface LoopStop {
  exit: LoopExit;
  /** Park the node until mail arrives (`nodes.yield`). */
  park?: boolean;
  /** Park the node on its human request until the request closes (`nodes.wait`). */
  waitHuman?: string;
}

export type ToolOutcome =
  /**
   * `job_id`: the job the call ran as (`nodes.jobs`), recorded with its result; `job_end`: how
   * that job ended, settled in the same record (none: the tool settled it itself).
   */
  | {
      output: unknown;
      is_error?: boolean;
      stop?: LoopStop;
      job_id?: string;
      job_end?: JobEnd;
      /** The progress report the call makes, created with its result (exactly once). */
      report?: ReportInput;
    }
  /**
   * Nothing is recorded and the loop stops: the call runs again when the broker is relaunched
   * (the daemon has already parked the node until that makes sense).
   */
  | { defer: LoopExit };

/**
 * A built-in tool; the scope that allows it is the protocol's (`BUILTIN_TOOLS`), so the daemon's
 * session tool list and the broker agree.
 */
export interface BrokerTool<S extends z.ZodType = z.ZodType> {
  name: BuiltinToolName;
  /** What the model is told (more than the protocol's one-line summary). */
  description: string;
  input: S;
  run(input: z.output<S>, ctx: ToolContext): Promise<ToolOutcome>;
  /**
   * The job a call with this input runs as, when it runs one: the record before the call starts
   * it, so the call's command waits for no request of its own (`ToolContext.job`).
   */
  job?(input: z.output<S>, ctx: Pick<ToolContext, 'sandbox'>): JobStart | undefined;
  /**
   * The call's result when its whole effect is a record of the daemon's (a report, a submit):
   * recorded with its turn, in one transaction, instead of run (`ToolResultRecord`'s fields).
   */
  inline?(input: z.output<S>): InlineResult;
}

/** What a call settled with its turn records: its output, and the report or outcome it makes. */
export interface InlineResult {
  output: unknown;
  report?: ReportInput;
  /** The outcome it submits: the daemon ends the node with the turn, or settles the call as why not. */
  submit?: ResultSubmission;
}

/** Identity, for inference: `run` gets the parsed input type of `input`. */
export function defineTool<S extends z.ZodType>(tool: BrokerTool<S>): BrokerTool<S> {
  return tool;
}

/** The scope a node must hold to be offered `tool`; `null`: every node. */
export function toolScope(tool: BrokerTool): string | null {
  return BUILTIN_TOOLS[tool.name].scope;
}

const specs = new WeakMap<BrokerTool, ToolSpec>();

/**
 * The tool as the model is told about it; made once per process (a spare broker makes them all
 * before it has a node: the JSON Schema conversion is CPU a first turn need not wait for).
 */
export function toolSpec(tool: BrokerTool): ToolSpec {
  let spec = specs.get(tool);
  if (spec === undefined) {
    const { $schema: _, ...schema } = z.toJSONSchema(tool.input, {
      target: 'draft-7',
      io: 'input',
    });
    spec = { description: tool.description, input_schema: schema as JSONSchema7 };
    specs.set(tool, spec);
  }
  return spec;
}
