import { tokens, usd } from '../format.ts';
import type { LiveTurn } from '../live-text.ts';
import { Json } from '../parts.tsx';
import type { SvcEvent, Turn } from '../types.ts';

type ToolCall = Turn['tool_calls'][number];

/** Output longer than this many lines (or characters) shows its head, the rest a click away. */
const FOLD_LINES = 12;
const FOLD_CHARS = 1200;

/**
 * The node's turns (its `node.turn` events) with each tool call's result beside it: a turn is
 * recorded with its calls pending, and each call's result comes later as a `node.tool` event,
 * matched here by the call's id. Success and error are told apart by a word and a colour.
 */
export function Transcript({ events }: { events: readonly SvcEvent[] }) {
  const results = new Map<string, ToolCall>();
  const turns: Turn[] = [];
  for (const e of events) {
    if (e.kind === 'node.turn') {
      const turn = e.payload.turn as Turn | undefined;
      if (turn !== undefined) turns.push(turn);
    } else if (e.kind === 'node.tool') {
      const call = e.payload.tool_call as ToolCall | undefined;
      if (call !== undefined) results.set(call.id, call);
    }
  }
  if (turns.length === 0) return null;
  return (
    <section aria-labelledby="transcript-title">
      <h3 id="transcript-title">Transcript</h3>
      <ol class="transcript">
        {turns.map((turn) => (
          <li key={turn.index} class="turn">
            <h4>
              Turn {turn.index}{' '}
              <span class="muted">
                {tokens(turn.usage.input_tokens)} in / {tokens(turn.usage.output_tokens)} out
                {turn.cost_usd !== null && ` · ${usd(turn.cost_usd)}`}
              </span>
            </h4>
            {turn.input.map((m, i) => (
              <blockquote key={i} class="input">
                <pre class="text">{m.text}</pre>
              </blockquote>
            ))}
            {turn.text !== '' && <pre class="text model-text">{turn.text}</pre>}
            {turn.tool_calls.length > 0 && (
              <ul class="tool-calls">
                {turn.tool_calls.map((call) => (
                  <ToolCallItem key={call.id} call={results.get(call.id) ?? call} />
                ))}
              </ul>
            )}
          </li>
        ))}
      </ol>
    </section>
  );
}

const STATUS_WORD = { ok: 'ok', error: 'error', pending: 'running' } as const;

function ToolCallItem({ call }: { call: ToolCall }) {
  return (
    <li class={`tool tool-${call.status}`} data-tool={call.name} data-status={call.status}>
      <div class="tool-call">
        <span class={`badge badge-tool-${call.status}`}>{STATUS_WORD[call.status]}</span>{' '}
        <code>{call.name}</code> <span class="muted">{inputSummary(call.input)}</span>
        <details>
          <summary>input</summary>
          <Json value={call.input} />
        </details>
      </div>
      {call.status !== 'pending' && (
        <div class="tool-result">
          <Output value={call.output} />
        </div>
      )}
    </li>
  );
}

interface CommandResult {
  exit_code: number | null;
  stdout: string;
  stderr: string;
  truncated?: boolean;
  duration_ms?: number;
}

function isCommand(value: unknown): value is CommandResult {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as CommandResult).stdout === 'string' &&
    typeof (value as CommandResult).stderr === 'string'
  );
}

/**
 * A result as people read it: a command's exit code and its streams as text, a string as is,
 * anything else as JSON; each folded past a dozen lines.
 */
export function Output({ value }: { value: unknown }) {
  if (isCommand(value)) {
    const failed = value.exit_code !== 0;
    return (
      <>
        <p class={failed ? 'exit error' : 'exit muted'}>
          exit {value.exit_code ?? 'none (killed)'}
          {value.duration_ms !== undefined && ` · ${value.duration_ms}ms`}
          {value.truncated === true && ' · output truncated'}
        </p>
        {value.stdout !== '' && <Folded text={value.stdout} />}
        {value.stderr !== '' && <Folded text={value.stderr} stderr />}
        {value.stdout === '' && value.stderr === '' && <p class="muted">(no output)</p>}
      </>
    );
  }
  const text =
    typeof value === 'string' ? value : value === null ? '' : JSON.stringify(value, null, 2);
  if (text === '') return <p class="muted">(no output)</p>;
  return <Folded text={text} />;
}

function Folded({ text, stderr = false }: { text: string; stderr?: boolean }) {
  const cls = stderr ? 'text output stderr' : 'text output';
  const lines = text.replace(/\n$/, '').split('\n');
  if (lines.length <= FOLD_LINES && text.length <= FOLD_CHARS) return <pre class={cls}>{text}</pre>;
  const head = lines.slice(0, FOLD_LINES).join('\n').slice(0, FOLD_CHARS);
  return (
    <details class="folded">
      <summary>
        <pre class={cls}>{head}</pre>
        <span class="muted more">
          … show all {lines.length} lines ({text.length} characters)
        </span>
        <span class="muted less">show less</span>
      </summary>
      <pre class={cls}>{text}</pre>
    </details>
  );
}

/** One line of a call's input: its first string field or its JSON, cut short. */
function inputSummary(input: unknown): string {
  let text = '';
  if (typeof input === 'string') text = input;
  else if (input !== null && typeof input === 'object') {
    const first = Object.values(input).find((v) => typeof v === 'string');
    text = typeof first === 'string' ? first : JSON.stringify(input);
  }
  const line = text.split('\n')[0] ?? '';
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

/**
 * The turn the model is writing, as it writes it (`useLiveText`), until the node's events bring
 * the recorded turn into the transcript above.
 */
export function LiveTurnView({
  live,
  events,
}: {
  live: LiveTurn | null;
  events: readonly SvcEvent[];
}) {
  if (live === null || live.text === '') return null;
  const recorded = events.some(
    (e) => e.kind === 'node.turn' && (e.payload.turn as Turn | undefined)?.index === live.index,
  );
  if (recorded) return null;
  return (
    <section aria-labelledby="live-turn-title" class="live-turn" aria-live="polite">
      <h4 id="live-turn-title">Turn {live.index}, being written</h4>
      <pre class="text model-text live-text">{live.text}</pre>
    </section>
  );
}
