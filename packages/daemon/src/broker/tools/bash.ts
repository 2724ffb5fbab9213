/**
 * `bash`: one shell command, through the daemon's own `runBash` (its own process group, so an
 * abort kills everything the command started). A non-zero exit is a result the model reads, not
 * a tool error.
 *
 * Each call runs as a job of the node (`nodes.jobs`): recorded `running` before the command
 * starts (by the record before the call, `job`, else a record of its own) and its end with the
 * call's result (`job_end`, one record), so a person sees what the node is running and can stop
 * just that command (`nodes.jobs.cancel`) without stopping the node.
 */
import { BASH_TIMEOUT_MAX_MS } from '@svc/protocol';
import { z } from 'zod';
import { type BashResult, runBash } from '../../bash/run.ts';
import { ApiError } from '../../errors.ts';
import type { SandboxPlan } from '../../sandbox/plan.ts';
import { openSession, type SandboxSession } from '../../sandbox/session.ts';
import { BROKER_TAG_ENV, brokerTag } from '../../supervisor/broker-tag.ts';
import type { BrokerPort } from '../port.ts';
import { defineTool } from './tool.ts';

/** A command that ends within this never asks the daemon about cancels. */
const WATCH_AFTER_MS = 1_000;
/** How long each look at the directive is held by the daemon. */
const WATCH_HOLD_S = 20;
/** Looks at least this far apart: a directive answered at once must not spin the loop. */
const WATCH_MIN_GAP_MS = 1_000;
const TITLE_MAX = 500;

export const bashTool = defineTool({
  name: 'bash',
  description:
    'Run a shell command (/bin/sh -c). Returns exit_code, signal, stdout, stderr (each capped ' +
    'at 1 MiB, `truncated` set when cut) and duration_ms.',
  input: z.object({
    command: z.string().min(1).describe('the command line'),
    cwd: z
      .string()
      .startsWith('/')
      .optional()
      .describe('absolute working directory (default: your working directory)'),
    timeout_ms: z
      .number()
      .int()
      .min(1)
      .max(BASH_TIMEOUT_MAX_MS)
      .optional()
      .describe('kill the command after this long (default 60000)'),
  }),
  // Only a call that can run starts a job: no plan, no command.
  job: ({ command }, { sandbox }) =>
    sandbox === undefined ? undefined : { kind: 'bash', title: titleOf(command) },
  async run({ command, cwd, timeout_ms }, ctx) {
    const { cwd: home, signal, port, sandbox, node } = ctx;
    // Fail closed: a node is never the person, so no plan means no command (not a bare one).
    if (sandbox === undefined) {
      throw new ApiError(
        'sandbox_unavailable',
        'this node was launched without a sandbox plan, so its commands cannot be confined',
      );
    }
    const job =
      ctx.job ??
      (await port.recordJob({ state: 'running', kind: 'bash', title: titleOf(command) }));
    const cancel = new AbortController();
    const done = new AbortController();
    const watching = watchCancel(port, job.id, cancel, done.signal);
    let result: BashResult;
    try {
      result = await runBash(
        { command, cwd: cwd ?? home, timeout_ms },
        AbortSignal.any([signal, cancel.signal]),
        {
          plan: sandbox,
          // The node's own mark: its host runs other nodes' loops, so it is no process-wide env.
          tag: { name: BROKER_TAG_ENV, value: brokerTag(node.id, process.pid) },
          session: () => sessionOf(sandbox),
        },
      );
    } catch (error) {
      await settle(port, { state: 'failed', id: job.id, exit_code: null });
      throw error;
    } finally {
      done.abort();
      await watching;
    }
    const cancelled = cancel.signal.aborted;
    const state =
      cancelled || signal.aborted ? 'cancelled' : result.exit_code === 0 ? 'done' : 'failed';
    const output = cancelled
      ? { ...result, cancelled: `job ${job.id} was cancelled (nodes.jobs.cancel)` }
      : result;
    // A stopped node's loop records no result of this call: its job's end goes on its own.
    if (signal.aborted) {
      await settle(port, { state, id: job.id, exit_code: result.exit_code });
      return { output, job_id: job.id };
    }
    return { output, job_id: job.id, job_end: { state, exit_code: result.exit_code } };
  },
});

/**
 * The node's one sandbox, made at its first command and reused (`../../sandbox/session.ts`);
 * `null` once it could not be made, so each command then gets a sandbox of its own. A session
 * that ended (its executor died) is made again at the next command.
 */
const sessions = new WeakMap<SandboxPlan, Promise<SandboxSession | null>>();
/** Plans whose sandbox was closed for good (the loop ended, or another plan replaced it). */
const retired = new WeakSet<SandboxPlan>();

/** Starts the node's sandbox ahead of its first command (at its launch, beside its claim). */
export function warmSandbox(plan: SandboxPlan): void {
  if (plan.mode === 'on' && plan.host.ready) void sessionOf(plan);
}
/** The node's sandbox ends (its loop ended, or was dropped): everything in it is killed. */
export async function closeSandbox(plan: SandboxPlan): Promise<void> {
  retired.add(plan);
  const held = sessions.get(plan);
  if (held === undefined) return;
  sessions.delete(plan);
  (await held)?.close();
}

async function sessionOf(plan: SandboxPlan): Promise<SandboxSession | null> {
  // Never made again: a command still holding a replaced plan must not run under it (and not
  // in a sandbox of its own either, which `null` would give it).
  if (retired.has(plan)) {
    throw new ApiError(
      'sandbox_unavailable',
      "this node's sandbox was closed: its plan changed (its profile) or its loop ended; run the command again",
    );
  }
  const held = await sessions.get(plan);
  if (held?.stale() === true) {
    held.close();
    sessions.delete(plan);
  }
  let session = sessions.get(plan);
  if (session === undefined) {
    session = openSession(plan, () => sessions.delete(plan)).catch(() => null);
    sessions.set(plan, session);
  }
  return session;
}

/**
 * The command as a job's title, cut at `TITLE_MAX` without splitting a surrogate pair (half a
 * pair is no text: the daemon refuses it, and the command would never run).
 */
function titleOf(command: string): string {
  if (command.length <= TITLE_MAX) return command;
  let cut = TITLE_MAX - 1;
  const last = command.charCodeAt(cut - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut--;
  return `${command.slice(0, cut)}…`;
}

/**
 * Aborts `cancel` once the daemon's directive lists job `jobId` in `cancel_jobs`; ends with
 * `done`. A stop of the whole node (cancel, interrupt) reaches the broker as a signal instead.
 */
async function watchCancel(
  port: BrokerPort,
  jobId: string,
  cancel: AbortController,
  done: AbortSignal,
): Promise<void> {
  try {
    if (!(await pause(WATCH_AFTER_MS, done))) return;
    while (!done.aborted) {
      const asked = Date.now();
      const directive = await port.directive(WATCH_HOLD_S, done);
      if (directive.cancel_jobs.includes(jobId)) {
        cancel.abort();
        return;
      }
      // The node is being stopped or parked: its signal, not this loop, ends the command.
      if (directive.action !== 'continue') return;
      const gap = WATCH_MIN_GAP_MS - (Date.now() - asked);
      if (gap > 0 && !(await pause(gap, done))) return;
    }
  } catch {
    // `done` (the command ended), or the daemon unreachable: the command runs on regardless.
  }
}

/**
 * Waits `ms`; `false` at once when `done` aborts first. Not `timers/promises`: its rejection on
 * an abort makes an error with its stack, and nearly every command ends within the first wait.
 */
function pause(ms: number, done: AbortSignal): Promise<boolean> {
  if (done.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const stop = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      done.removeEventListener('abort', stop);
      resolve(true);
    }, ms);
    done.addEventListener('abort', stop, { once: true });
  });
}

/** Records how the job ended; a node being stopped may no longer be heard, which changes nothing. */
async function settle(
  port: BrokerPort,
  end: { state: 'done' | 'failed' | 'cancelled'; id: string; exit_code: number | null },
): Promise<void> {
  try {
    await port.recordJob(end);
  } catch {
    // The daemon settles a stopped node's running jobs itself.
  }
}
