import { newId } from '@svc/protocol';
import type { Principal } from '../ports.ts';
import { record } from './close.ts';
import { content, type HumanCreateBody, newTicket } from './content.ts';
import { type HumanDeps, iso } from './deps.ts';
import { expireDue } from './expire.ts';
import { type HumanRequest, type HumanRequestRow, toHumanRequest } from './store.ts';

/** A new open request and its ticket in the person's inbox; a node's is its own. */
export function createRequest(
  deps: HumanDeps,
  body: HumanCreateBody,
  principal: Principal,
): HumanRequest {
  const { store } = deps;
  expireDue(deps);
  return store.db.transaction((afterCommit) => {
    const now = Date.now();
    const at = iso(now);
    const id = newId('human_request');
    const checked = content(body);
    const row: HumanRequestRow = {
      id,
      ticket_id: newId('ticket'),
      state: 'open',
      response: null,
      node_id: principal.kind === 'node' ? principal.nodeId : null,
      app_id: principal.appId,
      expires_at: body.expires_in_s === undefined ? null : iso(now + body.expires_in_s * 1000),
      created_at: at,
      updated_at: at,
    };
    store.human.insertRequest(row);
    const ticket = newTicket(store, row.ticket_id, id, checked, at);
    record(deps, row, 'created');
    for (const hook of deps.created) hook(row, ticket);
    deps.changed(afterCommit);
    return toHumanRequest(row, ticket);
  });
}
