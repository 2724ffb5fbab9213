/**
 * What one run of the agent loop holds while it runs: the node's session, its tools, and the
 * conversation rebuilt so far (see agent-loop.ts).
 */
import type { ModelMessage } from 'ai';
import type { LanguageModelV4 } from '../model-access/providers/index.ts';
import { assistantMessage, inputMessage } from './loop-messages.ts';
import { builtin } from './loop-tools.ts';
import type { BrokerLoad, BrokerPort, Job, Mail, RecordedToolCall, Turn } from './port.ts';
import { toolsFor } from './tools/index.ts';
import { type LoopTool, pluginTools } from './tools/plugin.ts';

export interface AgentLoopOptions {
  port: BrokerPort;
  model: LanguageModelV4;
  signal: AbortSignal;
  /** Progress for logs and live views; must not throw. Durable state goes through `port` only. */
  onEvent?: (event: LoopEvent) => void;
  /** Retries of a retryable provider error within one model call (default: `runModelTurn`'s). */
  maxRetries?: number;
  /** The profile env store from the launch: plugin calls read their shared tokens here. */
  env?: Readonly<Record<string, string>>;
  /** Kept out of a fault's message (the model's API key), which is recorded and logged. */
  secrets?: readonly string[];
}

export type LoopEvent =
  | { type: 'turn.started'; index: number }
  | { type: 'text.delta'; index: number; delta: string }
  | { type: 'turn.recorded'; turn: Turn }
  | { type: 'tool.started'; index: number; call: RecordedToolCall }
  | { type: 'tool.recorded'; index: number; call: RecordedToolCall };

export interface LoopState {
  readonly options: AgentLoopOptions;
  readonly session: BrokerLoad;
  readonly emit: (event: LoopEvent) => void;
  readonly tools: ReadonlyMap<string, LoopTool>;
  /** The tools' specs, as the model is given them. */
  readonly specs: Record<string, LoopTool['spec']>;
  readonly messages: ModelMessage[];
  readonly seenMail: Set<number>;
  /**
   * Mail claimed with the session or a turn's last result, for the next turn: no claim of its
   * own then.
   */
  claimed: Mail[] | null;
  /** The job the record before call `callId` started for it (`next_job`); taken by that call. */
  started: { callId: string; job: Job } | null;
}

export function openLoop(options: AgentLoopOptions, session: BrokerLoad): LoopState {
  const { node } = session;
  const tools = new Map<string, LoopTool>([
    ...toolsFor(node.scopes, session.tools).map((t) => [t.name, builtin(t)] as const),
    ...pluginTools(session.plugins, options.env ?? {}),
  ]);
  return {
    options,
    session,
    emit: options.onEvent ?? (() => {}),
    tools,
    specs: Object.fromEntries([...tools].map(([name, t]) => [name, t.spec])),
    messages: [],
    seenMail: new Set<number>(),
    claimed: session.mail ?? null,
    started: null,
  };
}

/** A recorded turn into the conversation, and its mail into what the model has seen. */
export function remember(loop: LoopState, turn: Turn): void {
  loop.messages.push(...turn.input.map(inputMessage));
  const assistant = assistantMessage(turn);
  if (assistant !== null) loop.messages.push(assistant);
  for (const m of turn.input) if (m.mail_seq !== null) loop.seenMail.add(m.mail_seq);
}
