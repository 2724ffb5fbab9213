import type { ReportBody } from '@svc/protocol';
import { nodeRow, now, type PlaneDeps } from './deps.ts';

/** `broker.reports.create`: a progress report of the node's, with its event. */
export function report(
  { store, events }: Pick<PlaneDeps, 'store' | 'events'>,
  id: string,
  body: ReportBody,
) {
  return store.db.transaction(() => {
    nodeRow(store, id);
    const created = store.reports.insert(id, body.text, body.data ?? null, now());
    events.record('node.report', id, { node_id: id, report: created });
    return created;
  });
}
