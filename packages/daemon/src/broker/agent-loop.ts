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
import { SUBMITTED_REASON } from '../ports.ts';
import { redactSecrets } from '../redact.ts';
import { abortedExit, directiveExit, faultReport } from './loop-directive.ts';
import type { LoopExit } from './loop-exit.ts';
import { claimNewMail } from './loop-messages.ts';
import { type AgentLoopOptions, openLoop, remember } from './loop-state.ts';
import { settleCalls, settleStopped } from './settle-calls.ts';
import { takeTurn } from './take-turn.ts';

export type { LoopExit, LoopExitKind } from './loop-exit.ts';
export type { AgentLoopOptions, LoopEvent } from './loop-state.ts';

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
  const { port, signal } = options;
  const session = await port.load();
  if (session.directive.action !== 'continue') return directiveExit(session.directive);
  const loop = openLoop(options, session);

  for (const turn of session.turns) {
    remember(loop, turn);
    const exit = await settleCalls(loop, turn.index, turn.tool_calls);
    if (exit !== null) return exit;
  }

  let last = session.turns.at(-1);
  for (;;) {
    if (signal.aborted) return abortedExit(signal);
    const mail = await claimNewMail(port, loop.seenMail, loop.claimed);
    loop.claimed = null;
    // A turn without tool calls handed the word back: only new mail gives the model something
    // to answer (this also holds for a broker relaunched right after such a turn).
    if (last !== undefined && last.tool_calls.length === 0 && mail.length === 0) {
      await port.park(ENDED_WITHOUT_RESULT);
      return { kind: 'waiting', reason: ENDED_WITHOUT_RESULT };
    }

    const { turn, directive, inlined } = await takeTurn(loop, last, mail);
    // The daemon acknowledged the turn's mail with it, and settled the calls it took inline.
    loop.emit({ type: 'turn.recorded', turn });
    if (inlined)
      for (const call of turn.tool_calls)
        loop.emit({ type: 'tool.recorded', index: turn.index, call });
    remember(loop, turn);
    last = turn;
    // Its submit was taken with it: the node is done (a refused one is an error the model reads).
    if (inlined && turn.tool_calls.some((c) => c.name === 'submit' && c.status === 'ok')) {
      return { kind: 'submitted', reason: SUBMITTED_REASON };
    }
    if (directive.action !== 'continue') {
      // A park leaves the calls pending, to run once the budget is raised.
      if (directive.action !== 'park') return settleStopped(port, turn, directive);
      return directiveExit(directive);
    }
    const exit = await settleCalls(loop, turn.index, turn.tool_calls);
    if (exit !== null) return exit;
  }
}
