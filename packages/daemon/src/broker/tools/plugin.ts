/**
 * Installed plugins' commands as tools (SPEC, "Installing a plugin", "Shared-token mode" and
 * "Directory mode"): the broker POSTs the input to `origin + rest.path`, with the shared token
 * read from its profile's env store (the launch's `env`) under the variable the installer named,
 * never from the shell, or with a token the daemon's directory signs for the call (the call
 * itself is plugins/call.ts, shared with `POST /v1/provider/call`). The answer goes back
 * to the model as the call's output: the command's JSON result, the items of a stream, or, on a
 * non-2xx, the plugin's error envelope as an error result.
 */
import { type BrokerPlugin, pluginToolName } from '@svc/protocol';
import type { JSONSchema7 } from 'ai';
import type { ToolSpec } from '../../model-access/model-turn.ts';
import {
  CALL_TIMEOUT_MS,
  callPluginCommand,
  type PluginCommand,
  requestIdFrom,
  type StreamEnd,
} from '../../plugins/call.ts';
import type { JobStart } from '../port.ts';
import type { InlineResult, ToolContext, ToolOutcome } from './tool.ts';

/** A tool the loop can offer and run: a built-in, or a plugin command. */
export interface LoopTool {
  spec: ToolSpec;
  run(input: unknown, ctx: ToolContext): Promise<ToolOutcome>;
  /** The job a call with `input` runs as (`BrokerTool.job`), when its input is valid. */
  job?(input: unknown, ctx: Pick<ToolContext, 'sandbox'>): JobStart | undefined;
  /** The call's result, recorded with its turn (`BrokerTool.inline`), when its input is valid. */
  inline?(input: unknown): InlineResult | undefined;
}

/** Each offered command of `plugins` as a tool, by its model name (one too long is left out). */
export function pluginTools(
  plugins: readonly BrokerPlugin[],
  env: Readonly<Record<string, string>>,
  { timeoutMs = CALL_TIMEOUT_MS }: { timeoutMs?: number } = {},
): Map<string, LoopTool> {
  const tools = new Map<string, LoopTool>();
  for (const plugin of plugins) {
    for (const command of plugin.commands) {
      const name = pluginToolName(command);
      if (name === null) continue;
      tools.set(name, {
        spec: {
          description: `${command.description} (plugin ${plugin.name}, group ${command.group}${command.streaming ? '; streams: answers its items' : ''})`,
          input_schema: inputSchema(command.input),
        },
        run: (input, ctx) => callCommand(plugin, command, env, timeoutMs, input, ctx),
      });
    }
  }
  return tools;
}

/**
 * The command's own schema, as the model sees it. A boolean schema (`true`: anything, `false`:
 * nothing) still asks for an object, the only body a command takes; the plugin judges it.
 */
function inputSchema(input: PluginCommand['input']): JSONSchema7 {
  return typeof input === 'object' ? (input as JSONSchema7) : { type: 'object' };
}

async function callCommand(
  plugin: BrokerPlugin,
  command: PluginCommand,
  env: Readonly<Record<string, string>>,
  timeoutMs: number,
  input: unknown,
  ctx: ToolContext,
): Promise<ToolOutcome> {
  if (!isObject(input)) return { output: 'the input must be a JSON object', is_error: true };
  const answer = await callPluginCommand({
    plugin,
    command,
    input,
    profile: ctx.node.profile,
    env,
    directoryToken: () => ctx.port.pluginToken(plugin.name, command.group),
    // Stable across a relaunch's rerun of the call, so the plugin's log ties the two together.
    requestId: requestIdFrom(ctx.idempotencyKey),
    signal: ctx.signal,
    timeoutMs,
  });
  switch (answer.kind) {
    case 'no_token':
    case 'no_directory_token':
    case 'failed':
      return { output: answer.message, is_error: true };
    case 'refused':
      // The kit's error envelope (`{error: {code, message, field?}}`) says what to fix.
      return {
        output: {
          status: answer.status,
          ...(isObject(answer.body) ? answer.body : { body: answer.body }),
        },
        is_error: true,
      };
    case 'cut':
      return { output: { truncated: true, text: answer.text }, is_error: true };
    case 'result':
      return { output: answer.value };
    case 'stream':
      return streamOutcome(answer.items, answer.end);
  }
}

/** A stream's items for the model, and how it ended when that was not `done`. */
function streamOutcome(items: unknown[], end: StreamEnd): ToolOutcome {
  switch (end.kind) {
    case 'done':
      return { output: { items, ended: true } };
    case 'cut':
      return { output: { items, ended: false, truncated: true } };
    case 'closed':
      return { output: { items, ended: false, stopped: 'the stream ended without `done`' } };
    case 'error':
      return {
        output: { items, ...(isObject(end.body) ? end.body : { error: end.body }) },
        is_error: true,
      };
    case 'broken':
      // The time limit, the node stopped, or the connection lost: what came so far, and why not more.
      return {
        output: { items, ended: false, stopped: end.reason },
        is_error: items.length === 0,
      };
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
