/** How the agent loop runs a tool call: a bad call or a refusal is a result the model reads. */
import { z } from 'zod';
import { ApiError } from '../errors.ts';
import type { RecordedToolCall } from './port.ts';
import type { BrokerTool, ToolContext, ToolOutcome } from './tools/index.ts';
import { toolSpec } from './tools/index.ts';
import type { LoopTool } from './tools/plugin.ts';
import { JITLESS } from './zod-options.ts';

/** A built-in tool for the loop: its input is checked against its schema before it runs. */
export function builtin(tool: BrokerTool): LoopTool {
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
