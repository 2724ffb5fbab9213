import type {
  Mail,
  Run,
  RunDeleteResult,
  RunEventsQuery,
  RunListAllQuery,
  RunListQuery,
  RunParseBody,
  RunParseResult,
  RunRenameBody,
  RunStartBody,
  RunWaitResult,
  runStreamQuerySchema,
  Turn,
  TurnListQuery,
} from '@svc/protocol';
import type { APIPromise } from '../core/api-promise.ts';
import { openOutcomeStream, RunStream } from '../core/outcome-stream.ts';
import type { PagePromise } from '../core/page-promise.ts';
import type { ListPage } from '../core/pages.ts';
import { id, pathOf } from '../core/path.ts';
import type { RequestOptions, StreamOptions } from '../core/request-options.ts';
import { APIResource } from '../core/resource.ts';
import type { Output } from '../internal/types.ts';
import type { NodeEventList, NodeMessageParams, NodeReasonParams } from './nodes.ts';
import { startParse, type WaitParams, waitFor } from './wait.ts';

export type RunStartParams = RunStartBody;
export type RunParseParams = RunParseBody;
export type RunListParams = RunListQuery;
export type RunListAllParams = RunListAllQuery;
export type RunRenameParams = RunRenameBody;
export type RunTraceParams = TurnListQuery;
export type RunEventsParams = RunEventsQuery;
export type RunStreamParams = Omit<Output<typeof runStreamQuerySchema>, 'after'>;
export type RunList = ListPage<Run>;
export type TurnList = ListPage<Turn>;

const run = (value: unknown) => id('run', value, 'runId');

/** `client.runs`: the application-facing API; an app sees and acts on its own runs. */
export class Runs extends APIResource {
  /** Starts a run: a root node inside the app's grant (POST /v1/runs, `svc:llm`). */
  start(params: RunStartParams, options?: RequestOptions): APIPromise<Run> {
    return this._transport.request('POST', pathOf('runs.start'), { body: params }, options);
  }

  get(runId: string, options?: RequestOptions): APIPromise<Run> {
    return this._transport.request('GET', pathOf('runs.get', { id: run(runId) }), {}, options);
  }

  /** The caller's own runs, newest first. */
  list(params: RunListParams = {}, options?: RequestOptions): PagePromise<RunList> {
    return this._transport.list(pathOf('runs.list'), { ...params }, options);
  }

  /** Every app's runs (owner only), optionally one app's. */
  listAll(params: RunListAllParams = {}, options?: RequestOptions): PagePromise<RunList> {
    return this._transport.list(pathOf('runs.listAll'), { ...params }, options);
  }

  /** Mail to the run's root at any time, read at its next turn. */
  message(runId: string, params: NodeMessageParams, options?: RequestOptions): APIPromise<Mail> {
    const url = pathOf('runs.message', { id: run(runId) });
    return this._transport.request('POST', url, { body: params }, options);
  }

  /** Answers a run that waits for a message; `ConflictError` otherwise. */
  reply(runId: string, params: NodeMessageParams, options?: RequestOptions): APIPromise<Mail> {
    const url = pathOf('runs.reply', { id: run(runId) });
    return this._transport.request('POST', url, { body: params }, options);
  }

  interrupt(
    runId: string,
    params: NodeReasonParams = {},
    options?: RequestOptions,
  ): APIPromise<Run> {
    const url = pathOf('runs.interrupt', { id: run(runId) });
    return this._transport.request('POST', url, { body: params }, options);
  }

  /** Cancels the run and its whole tree. */
  cancel(runId: string, params: NodeReasonParams = {}, options?: RequestOptions): APIPromise<Run> {
    const url = pathOf('runs.cancel', { id: run(runId) });
    return this._transport.request('POST', url, { body: params }, options);
  }

  /** Deletes a final run with its tree, trace and events. */
  delete(runId: string, options?: RequestOptions): APIPromise<RunDeleteResult> {
    return this._transport.request(
      'DELETE',
      pathOf('runs.delete', { id: run(runId) }),
      {},
      options,
    );
  }

  rename(runId: string, params: RunRenameParams, options?: RequestOptions): APIPromise<Run> {
    const url = pathOf('runs.rename', { id: run(runId) });
    return this._transport.request('POST', url, { body: params }, options);
  }

  /** The turns (with tool calls and results) of the run's tree, in recording order. */
  trace(
    runId: string,
    params: RunTraceParams = {},
    options?: RequestOptions,
  ): PagePromise<TurnList> {
    const url = pathOf('runs.trace', { id: run(runId) });
    return this._transport.list(url, { ...params }, options);
  }

  /** A page of the events of the run's tree in seq order. */
  events(
    runId: string,
    params: RunEventsParams = {},
    options?: RequestOptions,
  ): PagePromise<NodeEventList> {
    const url = pathOf('runs.events', { id: run(runId) });
    return this._transport.list(url, { ...params }, options);
  }

  /**
   * The events of the run's tree, backlog then live; resumable. Loop over it for the raw events,
   * or use its helpers: `on('text', …)`, `textStream` (the root's turns' text as it is
   * recorded), `finalOutcome()`, `finalText()`, `finalRun()`.
   */
  stream(runId: string, params: RunStreamParams = {}, options?: StreamOptions): RunStream<Run> {
    const url = pathOf('runs.stream', { id: run(runId) });
    // The run's tree's events; its text is its root node's turns.
    return openOutcomeStream(RunStream<Run>, this._transport, url, { ...params }, options, {
      textNode: async (read) => (await this.get(runId, read)).node_id,
      isOutcome: (e) => e.kind === 'run.outcome',
      retrieve: (read) => this.get(runId, read),
    });
  }

  /** Waits until the run is final or `timeout_s` (default 300) passes; `{ final, run }`. */
  wait(runId: string, params: WaitParams = {}, options?: RequestOptions): Promise<RunWaitResult> {
    return waitFor(this._transport, pathOf('runs.wait', { id: run(runId) }), params, options);
  }

  /** Starts a run with an `output_schema`, waits, and answers the result in `parsed`. */
  parse(params: RunParseParams, options?: RequestOptions): Promise<RunParseResult> {
    const url = pathOf('runs.parse');
    return startParse<'run', Run>(this._transport, url, 'run', params, options, (id, left, rest) =>
      this.wait(id, left, rest),
    );
  }
}
