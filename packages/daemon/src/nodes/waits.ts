/**
 * A running node stops to wait (`nodes.yield`, `nodes.wait`): for mail, its children, a human
 * request or a timer. What it waits for that is there already wakes it at once.
 */
import { isFinal, type nodeWaitBodySchema, transition } from '@svc/protocol';
import type { z } from 'zod';
import { ApiError } from '../errors.ts';
import { childrenDone, type MoveDeps, move } from './move.ts';
import type { Node, WaitingOn } from './store/nodes.ts';
import { toNode } from './store/to-node.ts';

export type WaitBody = z.output<typeof nodeWaitBodySchema>;

/** `nodes.yield`: the node waits for mail; mail already waiting queues it again at once. */
export function yieldNode(deps: MoveDeps, id: string, reason: string | undefined): Node {
  return deps.store.db.transaction((afterCommit) => {
    const row = deps.store.nodes.get(id)!;
    move(
      deps,
      row,
      'yield',
      { reason: reason ?? 'yielded; waiting for a message', waitingOn: { for: 'mail' } },
      afterCommit,
    );
    if (deps.store.mail.unacknowledged(id) > 0) move(deps, row, 'wake', {}, afterCommit);
    return toNode(row);
  });
}

/**
 * `nodes.wait`: children (default every child not yet final), a human request or a timer. A
 * children wait that already holds changes nothing: the node stays `running`.
 */
export function waitNode(deps: MoveDeps, id: string, body: WaitBody): Node {
  const { store } = deps;
  return store.db.transaction((afterCommit) => {
    const row = store.nodes.get(id)!;
    const allowed = transition(row.state, 'wait');
    if (!allowed.ok) throw new ApiError('invalid_state', allowed.message);
    let waitingOn: WaitingOn;
    let reason: string;
    let answered = false;
    if (body.for === 'children') {
      const children = store.nodes.children(id);
      for (const childId of body.node_ids ?? []) {
        if (!children.some((c) => c.id === childId)) {
          throw new ApiError('invalid_request', `${childId} is not a child of ${id}`, {
            field: 'node_ids',
          });
        }
      }
      const ids = body.node_ids ?? children.filter((c) => !isFinal(c.state)).map((c) => c.id);
      const mode = body.mode ?? 'all';
      waitingOn = { for: 'children', node_ids: ids, mode };
      if (ids.length === 0 || childrenDone(deps, waitingOn)) return toNode(row);
      reason = `waiting for ${mode === 'all' ? 'all of' : 'any of'} ${ids.length} child node(s)`;
    } else if (body.for === 'human') {
      const request = store.human.request(body.request_id);
      if (request?.node_id !== id) {
        throw new ApiError('not_found', `no human request ${body.request_id} of ${id}`, {
          field: 'request_id',
        });
      }
      waitingOn = body;
      reason = `waiting for the answer to human request ${body.request_id}`;
      // Closed already: its mail is on the way (or read); waiting would never end.
      answered = request.state !== 'open' && request.state !== 'in_progress';
    } else {
      waitingOn = {
        for: 'timer',
        until: new Date(Date.now() + body.seconds * 1000).toISOString(),
      };
      reason = `waiting until ${waitingOn.until}`;
    }
    move(deps, row, 'wait', { reason, waitingOn }, afterCommit);
    if (answered || store.mail.unacknowledged(id) > 0) move(deps, row, 'wake', {}, afterCommit);
    return toNode(row);
  });
}
