/**
 * The stream of a node or a run with the helpers openai-node's and Anthropic's streams have:
 * `on('text' | 'event' | 'outcome' | 'end' | 'error', …)`, `textStream`, and awaitables for
 * the end (`finalOutcome()`, `finalText()`, `finalRun()` / `finalNode()`). It is still the
 * plain async iterator of raw events: loop over it, or use the helpers, not both (a stream is
 * read once, as theirs are).
 *
 * Text arrives per recorded turn of the node (the run's root), not per token: the daemon's
 * durable stream records turns (docs/nodes.md "Turns, not tokens").
 */
import type { NodeEvent } from '@svc/protocol';
import { SvcError } from './errors.ts';
import type { RequestOptions, StreamOptions } from './request-options.ts';
import type { Stream } from './stream.ts';
import type { Query, Transport } from './transport.ts';

/** A final node's outcome, as `node.outcome` and `run.outcome` events carry it. */
export interface StreamOutcome {
  state: 'done' | 'failed' | 'cancelled';
  result: unknown;
  summary: string | null;
  error: { code: string; message: string } | null;
  finished_at: string;
}

interface Listeners {
  event: (event: NodeEvent) => void;
  /** `text`: one turn's text; `snapshot`: every turn's text so far, joined by blank lines. */
  text: (text: string, snapshot: string) => void;
  outcome: (outcome: StreamOutcome) => void;
  end: () => void;
  error: (error: unknown) => void;
}

export interface OutcomeStreamInit<S> {
  events: Stream<NodeEvent>;
  /** The node whose turns are the text: the node itself, a run's root. */
  textNode(): Promise<string>;
  /** The `node.outcome` or `run.outcome` event that ends the stream. */
  isOutcome(event: NodeEvent): boolean;
  /** The node or run once final, read after its outcome. */
  fetchFinal(): Promise<S>;
}

export class OutcomeStream<S> implements AsyncIterable<NodeEvent> {
  readonly #init: OutcomeStreamInit<S>;
  readonly #listeners: { [K in keyof Listeners]: Listeners[K][] } = {
    event: [],
    text: [],
    outcome: [],
    end: [],
    error: [],
  };
  #claimed: 'loop' | 'helpers' | undefined;
  #done: Promise<{ outcome: StreamOutcome; text: string }> | undefined;

  constructor(init: OutcomeStreamInit<S>) {
    this.#init = init;
  }

  /** Where a reconnect resumes: pass it as `after` to go on later. */
  get lastEventId(): string {
    return this.#init.events.lastEventId;
  }

  [Symbol.asyncIterator](): AsyncIterator<NodeEvent> {
    this.#claim('loop');
    return this.#init.events[Symbol.asyncIterator]();
  }

  /** Adds a listener; the stream starts being read (once) when the first helper is used. */
  on<K extends keyof Listeners>(name: K, listener: Listeners[K]): this {
    this.#listeners[name].push(listener);
    void this.#start().catch(() => {}); // the error reaches `error` listeners and the awaitables
    return this;
  }

  /** Each recorded turn's text as it comes. */
  get textStream(): AsyncIterable<string> {
    const queue: string[] = [];
    let wake: (() => void) | undefined;
    let ended = false;
    let failure: { error: unknown } | undefined;
    const notify = () => {
      wake?.();
      wake = undefined;
    };
    this.on('text', (text) => {
      queue.push(text);
      notify();
    });
    void this.#start().then(
      () => {
        ended = true;
        notify();
      },
      (error: unknown) => {
        failure = { error };
        notify();
      },
    );
    return {
      async *[Symbol.asyncIterator]() {
        for (;;) {
          const next = queue.shift();
          if (next !== undefined) {
            yield next;
            continue;
          }
          if (failure !== undefined) throw failure.error;
          if (ended) return;
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
        }
      },
    };
  }

  /** The outcome, once the node (the run's root) is final. */
  async finalOutcome(): Promise<StreamOutcome> {
    return (await this.#start()).outcome;
  }

  /** Every turn's text, joined by blank lines, once final. */
  async finalText(): Promise<string> {
    return (await this.#start()).text;
  }

  /** The node or run itself, read once it is final. */
  protected async finalSubject(): Promise<S> {
    await this.#start();
    return this.#init.fetchFinal();
  }

  #claim(by: 'loop' | 'helpers'): void {
    if (this.#claimed !== undefined && this.#claimed !== by) {
      throw new SvcError(
        'stream_consumed',
        'this stream is already being read; use its for-await loop or its helpers, not both',
      );
    }
    this.#claimed = by;
  }

  #start(): Promise<{ outcome: StreamOutcome; text: string }> {
    if (this.#done === undefined) {
      this.#claim('helpers');
      this.#done = this.#pump();
      this.#done.catch((error: unknown) => this.#emit('error', error));
    }
    return this.#done;
  }

  async #pump(): Promise<{ outcome: StreamOutcome; text: string }> {
    const textNode = await this.#init.textNode();
    const texts: string[] = [];
    for await (const event of this.#init.events) {
      this.#emit('event', event);
      const text = turnText(event, textNode);
      if (text !== null) {
        texts.push(text);
        this.#emit('text', text, texts.join('\n\n'));
      }
      if (this.#init.isOutcome(event)) {
        const { outcome } = event.payload as { outcome: StreamOutcome };
        this.#emit('outcome', outcome);
        this.#emit('end');
        return { outcome, text: texts.join('\n\n') };
      }
    }
    throw new SvcError(
      'stream_ended',
      'the stream ended before the outcome (its signal aborted, or the daemon stopped it)',
    );
  }

  #emit<K extends keyof Listeners>(name: K, ...args: Parameters<Listeners[K]>): void {
    for (const listener of this.#listeners[name]) {
      (listener as (...a: Parameters<Listeners[K]>) => void)(...args);
    }
  }
}

/** The text of a turn `nodeId` recorded; `null` for any other event or an empty text. */
function turnText(event: NodeEvent, nodeId: string): string | null {
  if (event.kind !== 'node.turn' || event.subject_id !== nodeId) return null;
  const text = (event.payload as { turn?: { text?: unknown } }).turn?.text;
  return typeof text === 'string' && text !== '' ? text : null;
}

/** What a stream asks of its subject, a node or a run, given the read options of the stream. */
export interface StreamSubject<S> {
  textNode(read: RequestOptions): Promise<string>;
  isOutcome(event: NodeEvent): boolean;
  retrieve(read: RequestOptions): Promise<S>;
}

/**
 * Opens the events at `url` as a `Kind` stream (`NodeStream`, `RunStream`): a node's and a run's
 * are one stream, a run's being its root node's tree. Reads for the helpers (the text's node,
 * the final subject) end with the stream's signal, and carry none of its other options.
 */
export function openOutcomeStream<S, T extends OutcomeStream<S>>(
  Kind: new (init: OutcomeStreamInit<S>) => T,
  transport: Transport,
  url: string,
  query: Query,
  options: StreamOptions | undefined,
  subject: StreamSubject<S>,
): T {
  const events = transport.stream<NodeEvent>(url, query, options);
  const read = options?.signal === undefined ? {} : { signal: options.signal };
  return new Kind({
    events,
    textNode: () => subject.textNode(read),
    isOutcome: (event) => subject.isOutcome(event),
    fetchFinal: () => subject.retrieve(read),
  });
}

/** `client.nodes.stream(id)`: the node's events, with `finalNode()`. */
export class NodeStream<N> extends OutcomeStream<N> {
  /** The node once final. */
  finalNode(): Promise<N> {
    return this.finalSubject();
  }
}

/** `client.runs.stream(id)`: the events of the run's tree, with `finalRun()`. */
export class RunStream<R> extends OutcomeStream<R> {
  /** The run once final. */
  finalRun(): Promise<R> {
    return this.finalSubject();
  }
}
