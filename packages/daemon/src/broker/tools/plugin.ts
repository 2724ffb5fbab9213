/**
 * Installed plugins' commands as tools (SPEC, "Installing a plugin", "Shared-token mode" and
 * "Directory mode"): the broker POSTs the input to `origin + rest.path`, with the shared token
 * read from its profile's env store (the launch's `env`) under the variable the installer named,
 * never from the shell, or with a token the daemon's directory signs for the call. The answer goes back to the model as the call's output: the command's JSON result, the
 * items of a stream, or, on a non-2xx, the plugin's error envelope as an error result.
 */
import {
  BEARER_TOKEN_PATTERN,
  type BrokerPlugin,
  pluginToolName,
  REQUEST_ID_HEADER,
} from '@svc/protocol';
import type { JSONSchema7 } from 'ai';
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { failureReason, readUpTo } from '../../fetch-read.ts';
import type { ToolSpec } from '../model-turn.ts';
import type { ToolContext, ToolOutcome } from './tool.ts';

/** A tool the loop can offer and run: a built-in, or a plugin command. */
export interface LoopTool {
  spec: ToolSpec;
  run(input: unknown, ctx: ToolContext): Promise<ToolOutcome>;
}

/** A command's answer is for a model to read: more than this is cut, and said to be. */
const MAX_ANSWER_BYTES = 1024 * 1024;
/** A command, or a stream that never ends (a watch), gives back what it has after this. */
const CALL_TIMEOUT_MS = 60_000;

type Command = BrokerPlugin['commands'][number];

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
function inputSchema(input: Command['input']): JSONSchema7 {
  return typeof input === 'object' ? (input as JSONSchema7) : { type: 'object' };
}

async function callCommand(
  plugin: BrokerPlugin,
  command: Command,
  env: Readonly<Record<string, string>>,
  timeoutMs: number,
  input: unknown,
  ctx: ToolContext,
): Promise<ToolOutcome> {
  if (!isObject(input)) return { output: 'the input must be a JSON object', is_error: true };
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    // Stable across a relaunch's rerun of the call, so the plugin's log ties the two together.
    [REQUEST_ID_HEADER]: requestId(ctx.idempotencyKey),
  };
  let token: string | undefined;
  if (plugin.auth === 'token') {
    const name = plugin.auth_env ?? '<NAME>';
    token = plugin.auth_env === null ? undefined : env[plugin.auth_env];
    if (token === undefined || token === '') {
      return {
        output: `plugin ${plugin.name} needs its shared token in the profile's env store: svc profile env set ${ctx.node.profile} --name ${name}`,
        is_error: true,
      };
    }
    // Checked before it goes in a header: a value with a newline would be quoted whole in the
    // error, and the error is what the model reads and the daemon records.
    if (!BEARER_TOKEN_PATTERN.test(token)) {
      return {
        output: `the value of ${name} in profile ${ctx.node.profile}'s env store is not a bearer token (visible ASCII, no white space): set it again`,
        is_error: true,
      };
    }
    headers.authorization = `Bearer ${token}`;
  } else if (plugin.auth === 'directory') {
    // One token per call, as real traffic is: the daemon's directory signs it for this node and
    // this group only, and it expires in minutes.
    try {
      token = await ctx.port.pluginToken(plugin.name, command.group);
    } catch (cause) {
      return {
        output: `plugin ${plugin.name} could not be given a token: ${cause instanceof Error ? cause.message : String(cause)}`,
        is_error: true,
      };
    }
    headers.authorization = `Bearer ${token}`;
  }
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = AbortSignal.any([ctx.signal, timeout]);
  const failed = (what: string, cause: unknown): ToolOutcome => ({
    output: `plugin ${plugin.name} ${what}: ${timeout.aborted ? `no complete answer in ${timeoutMs / 1000} s` : failureReason(cause, token)}`,
    is_error: true,
  });
  let response: Response;
  try {
    response = await fetch(new URL(command.path, plugin.origin), {
      method: 'POST',
      headers,
      body: JSON.stringify(input),
      signal,
      // The installer stored this origin; a redirect would carry the token elsewhere.
      redirect: 'error',
    });
  } catch (cause) {
    return failed('could not be called', cause);
  }
  try {
    const type = response.headers.get('content-type') ?? '';
    if (response.ok && type.startsWith('text/event-stream')) return await readStream(response);
    const { bytes, cut } = await readUpTo(response.body, MAX_ANSWER_BYTES);
    const text = bytes.toString('utf8');
    if (!response.ok) {
      // The kit's error envelope (`{error: {code, message, field?}}`) says what to fix.
      const body = jsonOr(text);
      return {
        output: { status: response.status, ...(isObject(body) ? body : { body }) },
        is_error: true,
      };
    }
    if (cut) return { output: { truncated: true, text }, is_error: true };
    return { output: jsonOr(text) };
  } catch (cause) {
    return failed('broke off its answer', cause);
  }
}

/** The JSON value `text` holds, else the text itself. */
function jsonOr(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The items of a command's stream (`data:` per item, `event: done` at the end, `event: error` with
 * the envelope when it fails midway). The bytes are counted before they are parsed, so one
 * endless event costs no more than the cap; the call's time limit ends a stream that never does.
 */
async function readStream(response: Response): Promise<ToolOutcome> {
  const items: unknown[] = [];
  let bytes = 0;
  const decoder = new TextDecoder();
  const reader = response
    .body!.pipeThrough(
      new TransformStream<Uint8Array, string>({
        transform(chunk, controller) {
          bytes += chunk.byteLength;
          if (bytes > MAX_ANSWER_BYTES) controller.terminate();
          else controller.enqueue(decoder.decode(chunk, { stream: true }));
        },
      }),
    )
    .pipeThrough(new EventSourceParserStream())
    .getReader();
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done) {
        const why =
          bytes > MAX_ANSWER_BYTES
            ? { truncated: true }
            : { stopped: 'the stream ended without `done`' };
        return { output: { items, ended: false, ...why } };
      }
      const { event, data } = next.value;
      if (event === 'done') return { output: { items, ended: true } };
      if (event === 'error') {
        const body = jsonOr(data);
        return { output: { items, ...(isObject(body) ? body : { error: body }) }, is_error: true };
      }
      items.push(jsonOr(data));
    }
  } catch (cause) {
    // The time limit, the node stopped, or the connection lost: what came so far, and why not more.
    return {
      output: { items, ended: false, stopped: failureReason(cause) },
      is_error: items.length === 0,
    };
  } finally {
    // A server may hold the connection open after `done`.
    await reader.cancel().catch(() => {});
  }
}

/** 1-200 visible ASCII characters, as the kit requires of `Svc-Request-Id`. */
function requestId(key: string): string {
  return key.replace(/[^\x21-\x7e]/g, '_').slice(0, 200) || 'svc';
}
