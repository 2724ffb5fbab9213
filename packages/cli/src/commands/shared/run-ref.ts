/** What every `svc run` handler shares: the id check, the printed run, and the run as a subject. */
import type { Run, RunWaitResult } from '@svc/client';
import type { Context } from '../../context.ts';
import { renderRun } from '../../output/node-view.ts';
import { parseId } from '../../parse/id.ts';
import { printSubject, type Subject } from './subject.ts';

export function runId(value: string): string {
  return parseId('run', value);
}

export function printRun(ctx: Context, r: Run): number {
  return printSubject(ctx, RUN, r);
}

/**
 * A run over the `runs` routes: the events of its whole tree, the `run.outcome` that ends it, and
 * its root node, whose waits say whether it can still end.
 */
export const RUN: Subject<Run, RunWaitResult> = {
  noun: 'run',
  stream: (client, id, _subtree, options) => client.runs.stream(id, {}, options),
  isOutcome: () => (e) => e.kind === 'run.outcome',
  rootNode: async (client, id) => (await client.runs.get(id)).node_id,
  retrieve: (client, id, signal) => client.runs.get(id, signal && { signal }),
  waitOnce: (client, id, timeout_s, signal) => client.runs.wait(id, { timeout_s }, { signal }),
  notFinal: (run) => ({ final: false, run }),
  subjectOf: (answer) => answer.run,
  stop: (client, verb, id, params) => client.runs[verb](id, params),
  render: renderRun,
};
