/** How the agent loop runs a tool call: a bad call or a refusal is a result the model reads. */
import { z } from 'zod';
import { ApiError } from '../errors.ts';
import type { BrokerLoad, JobStart, RecordedToolCall, TurnRecord } from './port.ts';
import type { BrokerTool, ToolContext, ToolOutcome } from './tools/index.ts';
import { toolSpec } from './tools/index.ts';
import type { LoopTool } from './tools/plugin.ts';
import { JITLESS } from './zod-options.ts';

/** A built-in tool for the loop: its input is checked against its schema before it runs. */
export function builtin(tool: BrokerTool): LoopTool {
  const { job, inline } = tool;
  return {
    spec: toolSpec(tool),
    ...(job !== undefined && {
      job(input, ctx) {
        const parsed = tool.input.safeParse(input, JITLESS);
        return parsed.success ? job(parsed.data, ctx) : undefined;
      },
    }),
    ...(inline !== undefined && {
      inline(input) {
        const parsed = tool.input.safeParse(input, JITLESS);
        return parsed.success ? inline(parsed.data) : undefined;
      },
    }),
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

/**
 * The job `call` runs as, started by the record before it (`next_job`); none for a call that
 * cannot run or runs no job.
 */
export function jobOf(
  loop: { readonly tools: ReadonlyMap<string, LoopTool>; readonly session: BrokerLoad },
  call: { name: string; input: unknown; error?: string | undefined } | undefined,
): JobStart | undefined {
  if (call === undefined || call.error !== undefined) return undefined;
  return loop.tools.get(call.name)?.job?.(call.input, { sandbox: loop.session.sandbox });
}

/**
 * The results of a turn's calls when each is settled with the turn (`LoopTool.inline`): then the
 * turn costs one request. None when any call must run (or cannot: a bad input runs, to say so).
 */
export function inlineResults(
  loop: { readonly tools: ReadonlyMap<string, LoopTool> },
  calls: readonly { id: string; name: string; input: unknown; error?: string | undefined }[],
): InlineRecord[] | undefined {
  if (calls.length === 0) return undefined;
  const results: InlineRecord[] = [];
  for (const [i, call] of calls.entries()) {
    const settled =
      call.error === undefined ? loop.tools.get(call.name)?.inline?.(call.input) : undefined;
    if (settled === undefined) return undefined;
    const { output, report, submit } = settled;
    // A submit ends the node: the calls after it do not run, so only a last one goes inline.
    if (submit !== undefined && i < calls.length - 1) return undefined;
    results.push({
      tool_call_id: call.id,
      status: 'ok',
      output,
      ...(report !== undefined && { report }),
      ...(submit !== undefined && { submit }),
    });
  }
  return results;
}

type InlineRecord = NonNullable<TurnRecord['results']>[number];

/** A bad call or a refusal is a result the model reads. */
export async function runTool(
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
