/**
 * A node's jobs (background commands of its broker) and reports: listed by page, and a running
 * job stopped on request.
 */
import { ApiError } from '../errors.ts';
import { type NodeDeps, now } from './deps.ts';
import type { Job } from './store/jobs.ts';
import type { Report } from './store/reports.ts';
import { type Caller, seenNode } from './visibility.ts';

/**
 * Stops a running job: a node without a live broker settles it at once; otherwise the
 * broker's next directive lists it (`cancel_jobs`) and the broker records how it ended.
 */
export function cancelJob(
  deps: Pick<NodeDeps, 'store' | 'events'>,
  nodeId: string,
  jobId: string,
  caller: Caller,
): Job {
  const { store, events } = deps;
  return store.db.transaction((afterCommit) => {
    const row = seenNode(store, caller.sight, nodeId);
    const job = store.jobs.get(row.id, jobId);
    if (job === undefined)
      throw new ApiError('not_found', `no job ${jobId} on ${nodeId}`, { field: 'job_id' });
    if (job.state !== 'running') return job;
    const at = now();
    if (row.state === 'running') {
      store.jobs.requestCancel(row.id, jobId, at);
      events.touch(afterCommit); // the broker's directive poll answers now, not at its end
      return job;
    }
    const ended = store.jobs.settle(row.id, jobId, {
      state: 'cancelled',
      exit_code: null,
      finished_at: at,
    })!;
    events.record('node.job', row.id, { node_id: row.id, job: ended });
    return ended;
  });
}

/**
 * `nodes.jobs.list`, newest first. Job ids sort by creation; `~` sorts after every id character,
 * so no cursor = the newest.
 */
export function listJobs(
  deps: Pick<NodeDeps, 'store'>,
  id: string,
  caller: Caller,
  limit: number,
  after: string | undefined,
): Job[] {
  seenNode(deps.store, caller.sight, id);
  return deps.store.jobs.list(id, after ?? '~', limit);
}

/** `nodes.reports.list`, oldest first after the `seq` cursor. */
export function listReports(
  deps: Pick<NodeDeps, 'store'>,
  id: string,
  caller: Caller,
  limit: number,
  after: number,
): Report[] {
  seenNode(deps.store, caller.sight, id);
  return deps.store.reports.list(id, after, limit);
}
