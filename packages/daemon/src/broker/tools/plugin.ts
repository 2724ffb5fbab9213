/**
 * Installed plugins' commands as tools (SPEC, "Installing a plugin" and "Shared-token mode"):
 * the broker POSTs the input to `origin + rest.path`, with the shared token read from its
 * profile's env store (the launch's `env`) under the variable the installer named, never from the
 * shell. The answer goes back to the model as the call's output: the command's JSON result, the
 * items of a stream, or, on a non-2xx, the plugin's error envelope as an error result.
 */
import type { BrokerPlugin } from '@svc/protocol';
import type { JSONSchema7 } from 'ai';
import { EventSourceParserStream } from 'eventsource-parser/stream';
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
/** Model providers allow `[a-zA-Z0-9_-]{1,64}` in a tool's name. */
const MAX_TOOL_NAME = 64;

type Command = BrokerPlugin['commands'][number];

/**
 * The model's name for a command: `<plugin>_<group>_<command>`. Plugin, group and command names
 * hold no `_` (`[a-z][a-z0-9-]*`), so the name is unambiguous; providers refuse the `:` of the
 * group's own name.
 */
export function pluginToolName(command: Pick<Command, 'scope' | 'name'>): string {
  return `${command.scope.replace(':', '_')}_${command.name}`;
}

/** Each offered command of `plugins` as a tool, by its model name (one too long is left out). */
export function pluginTools(
  plugins: readonly BrokerPlugin[],
  env: Readonly<Record<string, string>>,
): Map<string, LoopTool> {
  const tools = new Map<string, LoopTool>();
  for (const plugin of plugins) {
    for (const command of plugin.commands) {
      const name = pluginToolName(command);
      if (name.length > MAX_TOOL_NAME) continue;
      tools.set(name, {
        spec: {
          description: `${command.description} (plugin ${plugin.name}, group ${command.group}${command.streaming ? '; streams: answers its items' : ''})`,
          input_schema: inputSchema(command.input),
        },
        run: (input, ctx) => callCommand(plugin, command, env, input, ctx),
      });
    }
  }
  return tools;
}

/** The command's own schema, as the model sees it; `true` (anything) still asks for an object. */
function inputSchema(input: Command['input']): JSONSchema7 {
  return typeof input === 'object' ? (input as JSONSchema7) : { type: 'object' };
}

async function callCommand(
  plugin: BrokerPlugin,
  command: Command,
  env: Readonly<Record<string, string>>,
  input: unknown,
  ctx: ToolContext,
): Promise<ToolOutcome> {
  if (!isObject(input)) {
    return { output: 'the input must be a JSON object', is_error: true };
  }
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    // Stable across a relaunch's rerun of the call, so the plugin's log ties the two together.
    'svc-request-id': requestId(ctx.idempotencyKey),
  };
  if (plugin.auth === 'token') {
    const token = plugin.auth_env === null ? undefined : env[plugin.auth_env];
    if (token === undefined || token === '') {
      return {
        output: `plugin ${plugin.name} needs its shared token in the profile's env store: svc profile env set ${ctx.node.profile} --name ${plugin.auth_env ?? '<NAME>'}`,
        is_error: true,
      };
    }
    headers.authorization = `Bearer ${token}`;
  }
  const timeout = AbortSignal.timeout(CALL_TIMEOUT_MS);
  const signal = AbortSignal.any([ctx.signal, timeout]);
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
  } catch (error) {
    const why = timeout.aborted ? `no answer in ${CALL_TIMEOUT_MS / 1000} s` : messageOf(error);
    return { output: `plugin ${plugin.name} could not be called: ${why}`, is_error: true };
  }
  const type = response.headers.get('content-type') ?? '';
  if (response.ok && type.startsWith('text/event-stream')) {
    return readStream(response, timeout);
  }
  const { text, cut } = await readCapped(response, signal);
  if (!response.ok) {
    // The kit's error envelope (`{error: {code, message, field?}}`) says what to fix.
    const body = jsonOr(text);
    const answer = isObject(body) ? body : { body };
    return { output: { status: response.status, ...answer }, is_error: true };
  }
  if (cut) return { output: { truncated: true, text }, is_error: true };
  return { output: jsonOr(text) };
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
 * the envelope when it fails midway), up to the size cap or the call's time limit.
 */
async function readStream(response: Response, timeout: AbortSignal): Promise<ToolOutcome> {
  const items: unknown[] = [];
  let bytes = 0;
  const events = response
    .body!.pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream());
  const reader = events.getReader();
  const stop = () => void reader.cancel().catch(() => {});
  timeout.addEventListener('abort', stop, { once: true });
  try {
    for (;;) {
      let next: ReadableStreamReadResult<{ event?: string | undefined; data: string }>;
      try {
        next = await reader.read();
      } catch (error) {
        return { output: { items, ended: false, error: messageOf(error) }, is_error: true };
      }
      if (next.done) return { output: { items, ended: false, stopped: stopReason(timeout) } };
      const { event, data } = next.value;
      if (event === 'done') return { output: { items, ended: true } };
      if (event === 'error') {
        const body = jsonOr(data);
        return { output: { items, ...(isObject(body) ? body : { error: body }) }, is_error: true };
      }
      bytes += data.length;
      if (bytes > MAX_ANSWER_BYTES) {
        stop();
        return { output: { items, ended: false, truncated: true } };
      }
      items.push(jsonOr(data));
    }
  } finally {
    timeout.removeEventListener('abort', stop);
  }
}

function stopReason(timeout: AbortSignal): string {
  return timeout.aborted
    ? `the stream was still open after ${CALL_TIMEOUT_MS / 1000} s`
    : 'the stream ended without `done`';
}

/** The body as text, at most `MAX_ANSWER_BYTES` of it. */
async function readCapped(
  response: Response,
  signal: AbortSignal,
): Promise<{ text: string; cut: boolean }> {
  if (response.body === null) return { text: '', cut: false };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > MAX_ANSWER_BYTES) {
        chunks.push(value.subarray(0, value.byteLength - (total - MAX_ANSWER_BYTES)));
        await reader.cancel().catch(() => {});
        return { text: Buffer.concat(chunks).toString('utf8'), cut: true };
      }
      chunks.push(value);
    }
  } catch (error) {
    if (!signal.aborted) throw error;
    return { text: Buffer.concat(chunks).toString('utf8'), cut: true };
  }
  return { text: Buffer.concat(chunks).toString('utf8'), cut: false };
}

/** 1-200 visible ASCII characters, as the kit requires of `Svc-Request-Id`. */
function requestId(key: string): string {
  return key.replace(/[^\x21-\x7e]/g, '_').slice(0, 200) || 'svc';
}

function messageOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // fetch's "fetch failed" hides the useful cause ("connect ECONNREFUSED 127.0.0.1:…").
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error ? `${error.message}: ${cause.message}` : error.message;
}
