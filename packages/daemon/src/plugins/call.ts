/**
 * One call of an installed plugin's command (SPEC, "Installing a plugin", "Shared-token mode",
 * "Directory mode"), for both callers: a node's broker (its tool) and the daemon's
 * `POST /v1/provider/call` (an app or the owner). The input is POSTed to `origin + rest.path`
 * with the shared token from the caller's profile env store, or a token the daemon's directory
 * signs for this call, and the answer is read within caps and a time limit. What the answer
 * means (a tool result, an HTTP answer) is each caller's to say.
 */

import {
  BEARER_TOKEN_PATTERN,
  type BrokerPlugin,
  PROVIDER_CALL_TIMEOUT_MS,
  REQUEST_ID_HEADER,
} from '@svc/protocol';
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { failureReason, readUpTo } from '../fetch-read.ts';
import { redactSecrets, redactValue } from '../redact.ts';

/** An answer is for a model or an app to read: more than this is cut, and said to be. */
export const MAX_ANSWER_BYTES = 1024 * 1024;
/** A command, or a stream that never ends (a watch), gives back what it has after this. */
export const CALL_TIMEOUT_MS = PROVIDER_CALL_TIMEOUT_MS;

export type PluginCommand = BrokerPlugin['commands'][number];

export interface PluginCall {
  plugin: Pick<BrokerPlugin, 'name' | 'origin' | 'auth' | 'auth_env'>;
  command: Pick<PluginCommand, 'group' | 'path'>;
  input: Record<string, unknown>;
  /** The profile whose env store `env` is: the fix for a missing shared token names it. */
  profile: string;
  env: Readonly<Record<string, string>>;
  /** A directory-mode plugin's token for this one call. */
  directoryToken: () => Promise<string>;
  /** `Svc-Request-Id`: 1-200 visible ASCII characters, as the kit requires. */
  requestId: string;
  signal: AbortSignal;
  timeoutMs: number;
}

/** How a stream of items ended. */
export type StreamEnd =
  | { kind: 'done' }
  /** More than `MAX_ANSWER_BYTES`. */
  | { kind: 'cut' }
  /** Closed without `event: done`. */
  | { kind: 'closed' }
  /** `event: error` midway; `body` is its data (the kit's error envelope). */
  | { kind: 'error'; body: unknown }
  /** The time limit, the caller's abort, or the connection lost. */
  | { kind: 'broken'; reason: string };

export type PluginAnswer =
  /** Shared-token mode: no usable token in the profile's env store; nothing was sent. */
  | { kind: 'no_token'; message: string }
  /** Directory mode: the directory signed no token (`cause` is its error); nothing was sent. */
  | { kind: 'no_directory_token'; message: string; cause: unknown }
  /** Not reached, no complete answer in time, or its answer broke off. */
  | { kind: 'failed'; message: string }
  /** A non-2xx: `body` is the JSON it sent (the kit's error envelope), else its text. */
  | { kind: 'refused'; status: number; body: unknown }
  /** A 2xx: its JSON (`json`), else its text. */
  | { kind: 'result'; value: unknown; json: boolean }
  /** A 2xx over `MAX_ANSWER_BYTES`: the text up to it. */
  | { kind: 'cut'; text: string }
  | { kind: 'stream'; items: unknown[]; end: StreamEnd };

export async function callPluginCommand(call: PluginCall): Promise<PluginAnswer> {
  const { plugin, command, profile, env, timeoutMs } = call;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    [REQUEST_ID_HEADER]: call.requestId,
  };
  let token: string | undefined;
  if (plugin.auth === 'token') {
    const name = plugin.auth_env ?? '<NAME>';
    token = plugin.auth_env === null ? undefined : env[plugin.auth_env];
    if (token === undefined || token === '') {
      return {
        kind: 'no_token',
        message: `plugin ${plugin.name} needs its shared token in the profile's env store: svc profile env set ${profile} --name ${name}`,
      };
    }
    // Checked before it goes in a header: a value with a newline would be quoted whole in the
    // error, and the error is what the model or the app reads and the daemon records.
    if (!BEARER_TOKEN_PATTERN.test(token)) {
      return {
        kind: 'no_token',
        message: `the value of ${name} in profile ${profile}'s env store is not a bearer token (visible ASCII, no white space): set it again`,
      };
    }
    headers.authorization = `Bearer ${token}`;
  } else if (plugin.auth === 'directory') {
    // One token per call, as real traffic is: signed for this caller and this group only, and
    // it expires in minutes.
    try {
      token = await call.directoryToken();
    } catch (cause) {
      return {
        kind: 'no_directory_token',
        message: `plugin ${plugin.name} could not be given a token: ${cause instanceof Error ? cause.message : String(cause)}`,
        cause,
      };
    }
    headers.authorization = `Bearer ${token}`;
  }
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = AbortSignal.any([call.signal, timeout]);
  const failed = (what: string, cause: unknown): PluginAnswer => ({
    kind: 'failed',
    message: `plugin ${plugin.name} ${what}: ${timeout.aborted ? `no complete answer in ${timeoutMs / 1000} s` : failureReason(cause, token)}`,
  });
  let response: Response;
  try {
    response = await fetch(new URL(command.path, plugin.origin), {
      method: 'POST',
      headers,
      body: JSON.stringify(call.input),
      signal,
      // The installer stored this origin; a redirect would carry the token elsewhere.
      redirect: 'error',
    });
  } catch (cause) {
    return failed('could not be called', cause);
  }
  try {
    const type = response.headers.get('content-type') ?? '';
    if (response.ok && type.startsWith('text/event-stream')) {
      return { kind: 'stream', ...(await readStream(response, token)) };
    }
    const { bytes, cut } = await readUpTo(response.body, MAX_ANSWER_BYTES);
    // A plugin may echo what it was sent (a debug error page quoting Authorization), and its
    // answer goes to the model or the calling app, neither of which may hold the token.
    const text = bytes.toString('utf8');
    if (!response.ok)
      return { kind: 'refused', status: response.status, body: answerOf(text, token).value };
    if (cut) return { kind: 'cut', text: redactSecrets(text, [token]) };
    return { kind: 'result', ...answerOf(text, token) };
  } catch (cause) {
    return failed('broke off its answer', cause);
  }
}

/** The JSON value `text` holds, else the text itself. */
export function jsonOr(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * `text` as the caller gets it: the JSON value it holds (`json`), else the text itself, with the
 * token blanked in each string. Blanked once parsed, not before: JSON's escapes (`\u0061`) spell
 * a token the raw text does not show.
 */
function answerOf(text: string, token: string | undefined): { value: unknown; json: boolean } {
  const value = jsonOr(text);
  // Parsed JSON never equals its own text (a JSON string keeps its quotes there).
  return value === text
    ? { value: redactSecrets(text, [token]), json: false }
    : { value: redactValue(value, [token]), json: true };
}

/**
 * The items of a command's stream (`data:` per item, `event: done` at the end, `event: error` with
 * the envelope when it fails midway). The bytes are counted before they are parsed, so one
 * endless event costs no more than the cap; the call's time limit ends a stream that never does.
 */
async function readStream(
  response: Response,
  token: string | undefined,
): Promise<{ items: unknown[]; end: StreamEnd }> {
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
        return { items, end: { kind: bytes > MAX_ANSWER_BYTES ? 'cut' : 'closed' } };
      }
      const { event } = next.value;
      if (event === 'done') return { items, end: { kind: 'done' } };
      const { value } = answerOf(next.value.data, token);
      if (event === 'error') return { items, end: { kind: 'error', body: value } };
      items.push(value);
    }
  } catch (cause) {
    return { items, end: { kind: 'broken', reason: failureReason(cause) } };
  } finally {
    // A server may hold the connection open after `done`.
    await reader.cancel().catch(() => {});
  }
}

/** A key as `Svc-Request-Id` may carry it: 1-200 visible ASCII characters. */
export function requestIdFrom(key: string): string {
  return key.replace(/[^\x21-\x7e]/g, '_').slice(0, 200) || 'svc';
}
