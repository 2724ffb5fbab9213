/**
 * `nodes.create` (and a run's root through `runs.start`, a cron's node through its firing): a
 * queued node inside its creator's scope ceiling and the run's grant.
 */
import {
  type Ceiling,
  DEFAULT_BUDGETS,
  mergeBudgets,
  newId,
  type nodeCreateBodySchema,
} from '@svc/protocol';
import type { z } from 'zod';
import { checkScopes } from '../access/scopes.ts';
import { grantNetwork } from '../sandbox/network-grant.ts';
import { grantOf, scopeCeiling } from './ceiling.ts';
import { type AfterCommit, type NodeDeps, now } from './deps.ts';
import { chooseModel, creatorNetwork, networkFromProfile, profileOf } from './model-choice.ts';
import { compileUsable } from './output-schema.ts';
import type { Node, NodeRow, StoredModel } from './store/nodes.ts';
import { toNode } from './store/to-node.ts';
import { type Caller, seenNode } from './visibility.ts';
import { resolveWorkspace } from './workspace/resolve.ts';

export type CreateBody = z.output<typeof nodeCreateBodySchema>;

/** Where a new node goes when it starts a run (`runs.start`): no parent, the app's grant. */
export interface RunPlacement {
  runId: string;
  grant: Ceiling;
}

export type CreateDeps = Pick<
  NodeDeps,
  'store' | 'events' | 'profiles' | 'models' | 'home' | 'runtime'
>;

const TITLE_FROM_TASK = 80;
const DEFAULT_PROFILE = 'default';

/** `nodes.create`: `insertNode` in a transaction of its own. */
export function createNode(
  deps: CreateDeps,
  body: CreateBody,
  caller: Caller,
  run?: RunPlacement,
): Node {
  return deps.store.db.transaction((afterCommit) =>
    toNode(insertNode(deps, body, caller, afterCommit, run)),
  );
}

/**
 * Creates a queued node in the caller's transaction: its place in the tree, scopes inside the
 * creator's ceiling (and the run's grant), model and budgets from the body, profile and config.
 */
export function insertNode(
  deps: CreateDeps,
  body: CreateBody,
  { principal, sight }: Caller,
  afterCommit: AfterCommit,
  run?: RunPlacement,
): NodeRow {
  const { store, events } = deps;
  const parentId =
    body.parent_id ?? (principal.kind === 'node' && run === undefined ? principal.nodeId : null);
  const parent = parentId === null ? undefined : seenNode(store, sight, parentId, 'parent_id');
  // A child runs as its parent does unless it names another profile.
  const profileName = body.profile ?? parent?.profile ?? DEFAULT_PROFILE;
  const settings = profileOf(deps, profileName, body.profile !== undefined, principal);
  const grant = run?.grant ?? grantOf(store, parent?.run_id);
  const scopes = checkScopes(
    body.scopes ?? settings?.scopes ?? undefined,
    scopeCeiling(principal),
    grant,
  );
  if (body.output_schema !== undefined) compileUsable(body.output_schema);
  const creator = creatorNetwork(deps, principal);
  const network =
    grantNetwork(body.network, creator) ??
    networkFromProfile(deps, principal, profileName, creator);
  // Refused now, not failed later: a model that cannot run as things stand.
  const asked = { model: body.model as StoredModel | undefined, profile: body.profile };
  const model = chooseModel(deps, asked, profileName, settings, parent);
  deps.models.requireReady(model as Parameters<typeof deps.models.requireReady>[0]);
  const id = newId('node');
  const wanted = body.workspace ?? settings?.workspace ?? undefined;
  const workspace =
    wanted === undefined
      ? null
      : resolveWorkspace(wanted, id, {
          ceiling: scopeCeiling(principal),
          appId: principal.appId,
          home: deps.home,
          from: body.workspace === undefined ? `profile '${profileName}'` : 'workspace',
        });
  const at = now();
  const row: NodeRow = {
    id,
    parent_id: parent?.id ?? null,
    root_id: parent?.root_id ?? id,
    run_id: run?.runId ?? parent?.run_id ?? null,
    app_id: principal.appId,
    profile: profileName,
    title: body.title ?? titleOf(body.task),
    task: body.task,
    state: 'queued',
    state_reason: null,
    waiting_on: null,
    scopes,
    model,
    budgets: mergeBudgets(settings?.budgets ?? DEFAULT_BUDGETS, body.budgets),
    turns: 0,
    input_tokens: 0,
    output_tokens: 0,
    cost_usd: 0,
    outcome: null,
    output_schema: body.output_schema ?? null,
    metadata: body.metadata ?? {},
    workspace,
    network: network ?? null,
    created_at: at,
    updated_at: at,
    started_at: null,
    finished_at: null,
  };
  store.nodes.insert(row);
  events.record('node.state', id, {
    node_id: id,
    from: null,
    to: 'queued',
    action: 'create',
    reason: null,
  });
  afterCommit(() => deps.runtime().wake(id));
  return row;
}

/** The task's first line, cut to 80 characters. */
export function titleOf(task: string): string {
  const line = task.trim().split('\n', 1)[0] ?? '';
  return (
    (line.length > TITLE_FROM_TASK ? `${line.slice(0, TITLE_FROM_TASK - 1)}…` : line) || 'untitled'
  );
}
