import { isFinal, type JobRecordBody, type NextJob, newId } from '@svc/protocol';
import { ApiError } from '../errors.ts';
import type { Job } from '../nodes/store/jobs.ts';
import { nodeRow, now, type PlaneDeps } from './deps.ts';

type JobDeps = Pick<PlaneDeps, 'store' | 'events'>;

/** Ends a running job with its event; a job already ended answers as it is. */
export function settleJob(
  { store, events }: JobDeps,
  id: string,
  jobId: string,
  end: { state: 'done' | 'failed' | 'cancelled'; exit_code?: number | null | undefined },
  field: string,
): Job {
  const at = { state: end.state, exit_code: end.exit_code ?? null, finished_at: now() };
  const settled = store.jobs.settle(id, jobId, at);
  if (settled !== undefined) {
    events.record('node.job', id, { node_id: id, job: settled });
    return settled;
  }
  const known = store.jobs.get(id, jobId);
  if (known === undefined) {
    throw new ApiError('not_found', `${id} has no job ${jobId}`, { field });
  }
  return known;
}

/** Starts a job of the node, with its event (in the caller's transaction). */
export function startJob({ store, events }: JobDeps, id: string, start: NextJob): Job {
  const started = { id: newId('job'), node_id: id, kind: start.kind, title: start.title };
  const job = store.jobs.insert({ ...started, started_at: now() });
  events.record('node.job', id, { node_id: id, job });
  return job;
}

/** `broker.jobs.record`: starts a job, or settles one (a repeat answers it as it is). */
export function recordJob(deps: JobDeps, id: string, body: JobRecordBody): Job {
  const { store } = deps;
  return store.db.transaction(() => {
    const node = nodeRow(store, id);
    // Ending a job is a stopping broker's last record; starting one is work, which an ended
    // node does no more.
    if (body.state === 'running' && isFinal(node.state)) {
      throw new ApiError('invalid_state', `node ${id} is ${node.state}; it starts no job`);
    }
    if (body.state === 'running') return startJob(deps, id, body);
    return settleJob(deps, id, body.id, body, 'id');
  });
}
