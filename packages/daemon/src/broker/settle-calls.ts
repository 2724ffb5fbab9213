/**
 * The tool calls of one recorded turn, run and recorded one by one (see agent-loop.ts for why
 * each result is recorded as soon as its call ends).
 */

import { abortedExit, abortReason, directiveExit, reasonOf } from './loop-directive.ts';
import type { LoopExit } from './loop-exit.ts';
import { resultsMessage } from './loop-messages.ts';
import type { LoopState } from './loop-state.ts';
import { jobOf, runTool } from './loop-tools.ts';
import type {
  BrokerPort,
  Directive,
  JobStart,
  RecordedToolCall,
  ReportInput,
  Turn,
} from './port.ts';
import type { JobEnd, LoopStop } from './tools/index.ts';

/** Runs the calls of turn `index` still pending, recording each; a non-null exit ends the loop. */
export async function settleCalls(
  loop: LoopState,
  index: number,
  calls: readonly RecordedToolCall[],
): Promise<LoopExit | null> {
  const { emit, tools, messages } = loop;
  const { port, signal } = loop.options;
  const { node, cwd, home } = loop.session;
  const settled = new Map(calls.filter((c) => c.status !== 'pending').map((c) => [c.id, c]));
  /** The directive of the last record: after a stopping call, it may park at a budget. */
  let directive: Directive | undefined;
  const record = async (
    call: RecordedToolCall,
    output: unknown,
    isError: boolean,
    more: {
      job_id?: string;
      job_end?: JobEnd;
      claim_mail?: boolean;
      report?: ReportInput;
      /** The next call to run, whose job the record starts. */
      next?: { call: RecordedToolCall; job: JobStart };
    } = {},
  ) => {
    const { next, ...rides } = more;
    const answer = await port.recordToolResult({
      turn_index: index,
      tool_call_id: call.id,
      status: isError ? 'error' : 'ok',
      output,
      ...rides,
      ...(next !== undefined && { next_job: next.job }),
    });
    settled.set(call.id, answer.tool_call);
    emit({ type: 'tool.recorded', index, call: answer.tool_call });
    directive = answer.directive;
    if (answer.mail !== undefined) loop.claimed = answer.mail;
    if (answer.job !== undefined && next !== undefined) {
      loop.started = { callId: next.call.id, job: answer.job };
    }
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
  for (const [i, call] of calls.entries()) {
    if (settled.has(call.id)) continue;
    // Taken by this call or by none: a job started for a call is that call's alone.
    const started = loop.started?.callId === call.id ? loop.started.job : undefined;
    loop.started = null;
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
      // As it is now: the daemon may have sent another plan since the turn began.
      sandbox: loop.session.sandbox,
      signal,
      idempotencyKey: `${node.id}:${index}:${call.id}`,
      ...(started !== undefined && { job: started }),
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
    // A call that ran no job of the one started for it (its input refused, say) ends that job.
    const jobEnd =
      started !== undefined && outcome.job_id === undefined
        ? { job_id: started.id, job_end: { state: 'failed' as const, exit_code: null } }
        : {
            ...(outcome.job_id !== undefined && { job_id: outcome.job_id }),
            ...(outcome.job_end !== undefined && { job_end: outcome.job_end }),
          };
    const following =
      stop === undefined ? calls.slice(i + 1).find((c) => !settled.has(c.id)) : undefined;
    const nextJob = jobOf(loop, following);
    const answer = await record(call, outcome.output, outcome.is_error ?? false, {
      ...jobEnd,
      ...(outcome.report !== undefined && { report: outcome.report }),
      ...(following !== undefined &&
        nextJob !== undefined && { next: { call: following, job: nextJob } }),
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

/** A turn whose record answered `interrupt` or `cancel`: none of its calls runs. */
export async function settleStopped(port: BrokerPort, turn: Turn, directive: Directive) {
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
