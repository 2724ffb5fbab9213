/** `nodes.fork`: a new queued node with a copy of turns 1..through_turn; the source is untouched. */
import { newId, type nodeForkBodySchema } from '@svc/protocol';
import type { z } from 'zod';
import { checkScopes } from '../access/scopes.ts';
import { profileNetworkWithin } from '../sandbox/network-grant.ts';
import { grantOf, scopeCeiling } from './ceiling.ts';
import { type NodeDeps, now } from './deps.ts';
import { postMail, sender } from './mail.ts';
import { creatorNetwork, networkFromProfile } from './model-choice.ts';
import type { Node, NodeRow } from './store/nodes.ts';
import { toNode } from './store/to-node.ts';
import { type Caller, seenNode } from './visibility.ts';
import { forkWorkspace } from './workspace/resolve.ts';

export type ForkBody = z.output<typeof nodeForkBodySchema>;

export function forkNode(
  deps: Pick<NodeDeps, 'store' | 'events' | 'home' | 'runtime' | 'profiles'>,
  id: string,
  body: ForkBody,
  { principal, sight }: Caller,
): Node {
  const { store, events } = deps;
  return store.db.transaction((afterCommit) => {
    const source = seenNode(store, sight, id);
    const parentId = body.parent_id === undefined ? source.parent_id : body.parent_id;
    const parent = parentId === null ? undefined : seenNode(store, sight, parentId, 'parent_id');
    // Narrowing only: inside the source's list and the caller's own ceiling; then, in a run,
    // inside its grant as create has it (`null`, everything, narrows to the grant).
    const scopes = checkScopes(
      undefined,
      checkScopes(
        body.scopes ?? source.scopes ?? undefined,
        scopeCeiling(principal),
        source.scopes,
        "the forked node's scopes",
      ),
      grantOf(store, parent?.run_id),
    );
    // A copy made by anyone but the owner's token reaches no more than its maker could give,
    // as a create's: the source's network (or its profile's) capped, else a node without one
    // could fork an owner's node on a host-network profile and steer the copy by mail.
    const creator = creatorNetwork(deps, principal);
    const network =
      creator === null || source.network === null
        ? (source.network ?? networkFromProfile(deps, principal, source.profile, creator))
        : profileNetworkWithin(source.network, creator);
    const forkId = newId('node');
    const workspace =
      source.workspace === null
        ? null
        : forkWorkspace(source.workspace, forkId, {
            ceiling: scopeCeiling(principal),
            appId: principal.appId,
            home: deps.home,
            from: `the workspace of ${source.id}`,
          });
    const at = now();
    const row: NodeRow = {
      ...source,
      network,
      workspace,
      id: forkId,
      parent_id: parent?.id ?? null,
      root_id: parent?.root_id ?? forkId,
      run_id: parent?.run_id ?? null,
      app_id: principal.appId,
      title: body.title ?? source.title,
      state: 'queued',
      state_reason: null,
      waiting_on: null,
      scopes,
      turns: 0,
      input_tokens: 0,
      output_tokens: 0,
      cost_usd: 0,
      outcome: null,
      created_at: at,
      updated_at: at,
      started_at: null,
      finished_at: null,
    };
    store.nodes.insert(row);
    const through = Math.min(
      body.through_turn ?? Number.MAX_SAFE_INTEGER,
      store.turns.lastIndex(source.id),
    );
    store.turns.copy(source.id, forkId, through);
    events.record('node.state', forkId, {
      node_id: forkId,
      from: null,
      to: 'queued',
      action: 'fork',
      reason: `forked from ${source.id} through turn ${through}`,
    });
    if (body.task !== undefined) postMail(deps, row, sender(principal), body.task);
    afterCommit(() => deps.runtime().wake(forkId));
    return toNode(row);
  });
}
