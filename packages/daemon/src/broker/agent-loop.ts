/**
 * The agent loop of one node: model turn → tool calls → results → next turn, until the node
 * submits a result, yields, waits, reaches a budget, fails, or is aborted.
 *
 * Durability (the daemon is the sole writer, `./port.ts`):
 * - a turn is recorded before any of its tool calls runs, and the loop acts on the turn the
 *   daemon answers (a repeated record answers the first);
 * - each tool result is recorded as soon as the call ends, so before the next model call;
 * - the conversation is always rebuilt from records: on start the recorded turns are replayed
 *   without calling the model, and only calls still `pending` run. A call that was running when
 *   a broker died runs again (at least once); a recorded one never does.
 * - each record answers a directive: `park` (the daemon parked the node at a budget, which it does
 *   only once nothing of the last turn is pending, so the turn that reaches a budget runs all its
 *   calls) stops the loop; `interrupt` and `cancel` stop it like an abort. Budgets are the
 *   daemon's alone: it sees a budget raised or cut while the broker runs.
 *
 * Aborting `signal` (cancel, interrupt, shutdown) aborts the model request and kills the process
 * group of a running `bash` at once; the calls it cut short are recorded as interrupted, so a
 * relaunch does not run them again.
 */
import type { ModelMessage } from 'ai';
import { z } from 'zod';
import { ApiError } from '../errors.ts';
import { ModelError } from '../model-access/model-error.ts';
import { runModelTurn, toolResultsMessage } from '../model-access/model-turn.ts';
import type { LanguageModelV4 } from '../model-access/providers/index.ts';
import { redactSecrets } from '../redact.ts';
import type { LoopExit } from './loop-exit.ts';
import type {
  BrokerPort,
  Directive,
  FaultReport,
  Mail,
  RecordedToolCall,
  Turn,
  TurnRecord,
} from './port.ts';
import { warmSandbox } from './tools/bash.ts';
import {
  type BrokerTool,
  type JobEnd,
  type LoopStop,
  type ToolContext,
  type ToolOutcome,
  toolSpec,
  toolsFor,
} from './tools/index.ts';
import { type LoopTool, pluginTools } from './tools/plugin.ts';
import { JITLESS } from './zod-options.ts';

export type { LoopExit, LoopExitKind } from './loop-exit.ts';

export interface AgentLoopOptions {
  port: BrokerPort;
  model: LanguageModelV4;
  signal: AbortSignal;
  /** Progress for logs and live views; must not throw. Durable state goes through `port` only. */
  onEvent?: (event: LoopEvent) => void;
  /** Retries of a retryable provider error within one model call (default: `runModelTurn`'s). */
  maxRetries?: number;
  /** The profile env store from the launch: plugin calls read their shared tokens here. */
  env?: Readonly<Record<string, string>>;
  /** Kept out of a fault's message (the model's API key), which is recorded and logged. */
  secrets?: readonly string[];
}

export type LoopEvent =
  | { type: 'turn.started'; index: number }
  | { type: 'text.delta'; index: number; delta: string }
  | { type: 'turn.recorded'; turn: Turn }
  | { type: 'tool.started'; index: number; call: RecordedToolCall }
  | { type: 'tool.recorded'; index: number; call: RecordedToolCall };

type TurnInput = TurnRecord['input'][number];

const ENDED_WITHOUT_RESULT =
  'the model ended its turn without submitting a result; waiting for a message';

export async function runAgentLoop(options: AgentLoopOptions): Promise<LoopExit> {
  const { port, signal } = options;
  try {
    return await drive(options);
  } catch (error) {
    if (signal.aborted) return abortedExit(signal);
    const found = faultReport(error);
    const report = { ...found, message: redactSecrets(found.message, options.secrets ?? []) };
    // Best effort: when the control plane is what broke, the supervisor still sees the exit.
    await port.fault(report).catch(() => {});
    return { kind: 'failed', reason: `${report.code}: ${report.message}` };
  }
}

async function drive(options: AgentLoopOptions): Promise<LoopExit> {
  const { port, model, signal } = options;
  const emit = options.onEvent ?? (() => {});
  const session = await port.load();
  const { node, cwd, home, sandbox } = session;
  if (session.directive.action !== 'continue') return directiveExit(session.directive);
  const tools = new Map<string, LoopTool>([
    ...toolsFor(node.scopes, session.tools).map((t) => [t.name, builtin(t)] as const),
    ...pluginTools(session.plugins, options.env ?? {}),
  ]);
  const specs = Object.fromEntries([...tools].map(([name, t]) => [name, t.spec]));
  // Its sandbox is made while the model takes its first turn, so its first command finds it;
  // not before that turn starts, which would wait for the spawn.
  let warm = sandbox !== undefined && tools.has('bash') ? sandbox : undefined;
  const messages: ModelMessage[] = [];
  const seenMail = new Set<number>();
  /**
   * Mail claimed with the session or a turn's last result, for the next turn: no claim of its
   * own then.
   */
  let claimed: Mail[] | null = session.mail ?? null;

  /** Runs the calls of turn `index` still pending, recording each; a non-null exit ends the loop. */
  async function settle(
    index: number,
    calls: readonly RecordedToolCall[],
  ): Promise<LoopExit | null> {
    const settled = new Map(calls.filter((c) => c.status !== 'pending').map((c) => [c.id, c]));
    /** The directive of the last record: after a stopping call, it may park at a budget. */
    let directive: Directive | undefined;
    const record = async (
      call: RecordedToolCall,
      output: unknown,
      isError: boolean,
      more: { job_id?: string; job_end?: JobEnd; claim_mail?: boolean } = {},
    ) => {
      const answer = await port.recordToolResult({
        turn_index: index,
        tool_call_id: call.id,
        status: isError ? 'error' : 'ok',
        output,
        ...more,
      });
      settled.set(call.id, answer.tool_call);
      emit({ type: 'tool.recorded', index, call: answer.tool_call });
      directive = answer.directive;
      if (answer.mail !== undefined) claimed = answer.mail;
      return directive;
    };
    /** Calls cut short or never started: the model learns so, and a relaunch does not rerun them. */
    const recordUnsettled = async (why: string) => {
      try {
        for (const call of calls) if (!settled.has(call.id)) await record(call, why, true);
      } catch {
        // A stopped or finished node may refuse records; the daemon owns its state from here.
      }
    };

    let stop: LoopStop | undefined;
    for (const call of calls) {
      if (settled.has(call.id)) continue;
      if (signal.aborted) {
        await recordUnsettled(`interrupted: ${abortReason(signal)}`);
        return abortedExit(signal);
      }
      if (stop !== undefined) break;
      emit({ type: 'tool.started', index, call });
      const outcome = await runTool(tools, call, {
        node,
        port,
        cwd,
        home,
        sandbox,
        signal,
        idempotencyKey: `${node.id}:${index}:${call.id}`,
      });
      if ('defer' in outcome) return outcome.defer;
      if (signal.aborted) {
        await recordUnsettled(`interrupted: ${abortReason(signal)}`);
        return abortedExit(signal);
      }
      stop = outcome.stop;
      if (stop?.exit.kind === 'submitted') {
        // The node is done: the daemon still takes this call's own result (and the rest as not
        // run), and a refusal would change nothing.
        const { reason } = stop.exit;
        await record(call, outcome.output, false)
          .then(() => recordUnsettled(`not run: ${reason}`))
          .catch(() => {});
        return stop.exit;
      }
      const answer = await record(call, outcome.output, outcome.is_error ?? false, {
        ...(outcome.job_id !== undefined && { job_id: outcome.job_id }),
        ...(outcome.job_end !== undefined && { job_end: outcome.job_end }),
        // The turn's last result: the loop goes on to the next turn, which reads this mail.
        ...(stop === undefined && call === calls.at(-1) && { claim_mail: true }),
      });
      if (answer.action !== 'continue' && stop === undefined) {
        // A park leaves what is pending to run once the budget is raised.
        if (answer.action !== 'park') await recordUnsettled(`interrupted: ${reasonOf(answer)}`);
        return directiveExit(answer);
      }
    }
    if (stop !== undefined) {
      for (const call of calls) {
        if (!settled.has(call.id)) await record(call, `not run: ${stop.exit.reason}`, true);
      }
    }
    if (calls.length > 0) messages.push(resultsMessage(calls.map((c) => settled.get(c.id) ?? c)));
    if (stop === undefined) return null;
    // The last record parked the node at its budget (or stopped it): nothing left to park.
    if (directive !== undefined && directive.action !== 'continue') return directiveExit(directive);
    if (stop.park === true) await port.park(stop.exit.reason);
    else if (stop.waitHuman !== undefined) await port.waitHuman(stop.waitHuman);
    return stop.exit;
  }

  const remember = (turn: Turn) => {
    messages.push(...turn.input.map(inputMessage));
    const assistant = assistantMessage(turn);
    if (assistant !== null) messages.push(assistant);
    for (const m of turn.input) if (m.mail_seq !== null) seenMail.add(m.mail_seq);
  };

  for (const turn of session.turns) {
    remember(turn);
    const exit = await settle(turn.index, turn.tool_calls);
    if (exit !== null) return exit;
  }

  let last = session.turns.at(-1);
  for (;;) {
    if (signal.aborted) return abortedExit(signal);
    const mail = await claimNewMail(port, seenMail, claimed);
    claimed = null;
    // A turn without tool calls handed the word back: only new mail gives the model something
    // to answer (this also holds for a broker relaunched right after such a turn).
    if (last !== undefined && last.tool_calls.length === 0 && mail.length === 0) {
      await port.park(ENDED_WITHOUT_RESULT);
      return { kind: 'waiting', reason: ENDED_WITHOUT_RESULT };
    }

    const index = (last?.index ?? 0) + 1;
    const input: TurnInput[] = [
      ...(last === undefined ? [{ role: 'user' as const, text: node.task }] : []),
      ...mail.map((m) => ({ role: 'user' as const, text: mailText(m), mail_seq: m.seq })),
    ];
    const startedAt = new Date().toISOString();
    emit({ type: 'turn.started', index });
    const modelTurn = runModelTurn({
      model,
      ...(session.system_prompt !== null && { system: session.system_prompt }),
      messages: [...messages, ...input.map(inputMessage)],
      tools: specs,
      signal,
      onTextDelta: (delta) => emit({ type: 'text.delta', index, delta }),
      ...(options.maxRetries !== undefined && { maxRetries: options.maxRetries }),
    });
    if (warm !== undefined) {
      warmSandbox(warm);
      warm = undefined;
    }
    const result = await modelTurn;
    const { turn, directive } = await port.recordTurn({
      index,
      model: node.model,
      input,
      text: result.text,
      tool_calls: result.toolCalls.map((c) => ({
        id: c.id,
        name: c.name,
        input: c.input,
        ...(c.error !== undefined && { error: c.error }),
      })),
      usage: result.usage,
      cost_usd: result.cost_usd,
      finish_reason: result.finish_reason,
      started_at: startedAt,
      finished_at: new Date().toISOString(),
    });
    // The daemon acknowledged the turn's mail with it.
    emit({ type: 'turn.recorded', turn });
    remember(turn);
    last = turn;
    if (directive.action !== 'continue') {
      // A park leaves the calls pending, to run once the budget is raised.
      if (directive.action !== 'park') return settleStopped(port, turn, directive);
      return directiveExit(directive);
    }
    const exit = await settle(turn.index, turn.tool_calls);
    if (exit !== null) return exit;
  }
}

/** A built-in tool for the loop: its input is checked against its schema before it runs. */
function builtin(tool: BrokerTool): LoopTool {
  return {
    spec: toolSpec(tool),
    run(input, ctx) {
      const parsed = tool.input.safeParse(input, JITLESS);
      if (!parsed.success) {
        return Promise.resolve({
          output: `invalid input for ${tool.name}:\n${z.prettifyError(parsed.error)}`,
          is_error: true,
        });
      }
      return tool.run(parsed.data, ctx);
    },
  };
}

/** A bad call or a refusal is a result the model reads. */
async function runTool(
  tools: ReadonlyMap<string, LoopTool>,
  call: RecordedToolCall,
  ctx: ToolContext,
): Promise<ToolOutcome> {
  const tool = tools.get(call.name);
  if (tool === undefined) {
    return { output: `tool ${call.name} is not available to this node`, is_error: true };
  }
  try {
    return await tool.run(call.input, ctx);
  } catch (error) {
    // A host that cannot confine the command is no fault of the node: the model reads why.
    if (error instanceof ApiError && (error.status < 500 || error.code === 'sandbox_unavailable')) {
      return { output: `${error.code}: ${error.message}`, is_error: true };
    }
    throw error;
  }
}

/** A turn whose record answered `interrupt` or `cancel`: none of its calls runs. */
async function settleStopped(port: BrokerPort, turn: Turn, directive: Directive) {
  const why = `interrupted: ${reasonOf(directive)}`;
  try {
    for (const call of turn.tool_calls) {
      if (call.status === 'pending') {
        await port.recordToolResult({
          turn_index: turn.index,
          tool_call_id: call.id,
          status: 'error',
          output: why,
        });
      }
    }
  } catch {
    // The daemon may refuse records of a stopped node.
  }
  return directiveExit(directive);
}

/**
 * The node's unacknowledged mail (`claimed` with the last result, else claimed now) minus what a
 * recorded turn already holds: mail a turn recorded but never acknowledged (by a daemon that did
 * not acknowledge with the turn) is acknowledged now.
 */
async function claimNewMail(
  port: BrokerPort,
  seen: ReadonlySet<number>,
  prefetched: Mail[] | null,
): Promise<Mail[]> {
  const claimed = prefetched ?? (await port.claimMail());
  const stale = claimed.filter((m) => seen.has(m.seq)).map((m) => m.seq);
  if (stale.length > 0) await port.ackMail(stale);
  return claimed.filter((m) => !seen.has(m.seq));
}

function mailText(mail: Mail): string {
  const { kind, id } = mail.from;
  return kind === 'owner' ? mail.text : `Message from ${kind} ${id}:\n${mail.text}`;
}

/** Daemon notes (`system`) reach the model as user messages: providers take one system prompt. */
function inputMessage(message: { text: string }): ModelMessage {
  return { role: 'user', content: message.text };
}

function assistantMessage(turn: Turn): ModelMessage | null {
  const content = [
    ...(turn.text === '' ? [] : [{ type: 'text' as const, text: turn.text }]),
    ...turn.tool_calls.map((c) => ({
      type: 'tool-call' as const,
      toolCallId: c.id,
      toolName: c.name,
      input: c.input ?? {},
    })),
  ];
  return content.length === 0 ? null : { role: 'assistant', content };
}

function resultsMessage(calls: readonly RecordedToolCall[]): ModelMessage {
  return toolResultsMessage(
    calls.map((c) => ({
      id: c.id,
      name: c.name,
      output: c.output,
      is_error: c.status === 'error',
    })),
  );
}

function reasonOf(directive: Directive): string {
  return directive.reason ?? `the daemon asked the broker to ${directive.action}`;
}

function directiveExit(directive: Directive): LoopExit {
  return directive.action === 'park'
    ? { kind: 'budget', reason: reasonOf(directive) }
    : { kind: 'aborted', reason: reasonOf(directive) };
}

function abortReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (typeof reason === 'string') return reason;
  if (reason instanceof Error && reason.name !== 'AbortError') return reason.message;
  return 'the node was stopped';
}

function abortedExit(signal: AbortSignal): LoopExit {
  return { kind: 'aborted', reason: abortReason(signal) };
}

/** Fault codes in the protocol's vocabulary; a model error that retrying cannot fix is fatal. */
function faultReport(error: unknown): FaultReport {
  if (error instanceof ModelError) {
    const code =
      error.code === 'auth'
        ? 'auth_failed'
        : error.code === 'script_exhausted'
          ? 'script_exhausted'
          : `provider_${error.code}`;
    return { code, message: error.message, fatal: !error.retryable };
  }
  // A relaunch from the recorded history may well get past a broken connection.
  const message = error instanceof Error ? error.message : String(error);
  return { code: 'broker_error', message, fatal: false };
}
