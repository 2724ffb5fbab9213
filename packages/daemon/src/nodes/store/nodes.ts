/**
 * Nodes (migration 003): one row per node, its tree position, state, scopes, model, budgets,
 * usage counters and outcome (the binding of node tokens to their node is `tokens/store.ts`'s).
 * Rows come back parsed and go back as text here; they answer as the protocol's `Node` through
 * `toNode`.
 */

import {
  type Budgets,
  FINAL_STATES,
  type NetworkPolicy,
  type Node,
  type NodeState,
  type Usage,
} from '@svc/protocol';
import type { Db } from '../../store/db.ts';
import { fromJson, toJson } from '../../store/json.ts';

export type { Node };
export type WaitingOn = NonNullable<Node['waiting_on']>;
export type Outcome = NonNullable<Node['outcome']>;
export type Workspace = NonNullable<Node['workspace']>;

/** The model a node runs, as stored: the DTO's `{provider, model}` plus a scripted model's turns. */
export interface StoredModel {
  provider: Node['model']['provider'];
  model: string;
  script?: unknown[];
}

/**
 * A node row, its JSON columns parsed: the store reads and writes the text (`parseRow`,
 * `columnsOf`), nothing above it does.
 */
export interface NodeRow {
  id: string;
  parent_id: string | null;
  root_id: string;
  run_id: string | null;
  app_id: string | null;
  profile: string;
  title: string;
  task: string;
  state: NodeState;
  state_reason: string | null;
  waiting_on: WaitingOn | null;
  /** The node's scope list; `null`: every scope (no list). */
  scopes: string[] | null;
  model: StoredModel;
  budgets: Budgets;
  turns: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
  outcome: Outcome | null;
  output_schema: Record<string, unknown> | null;
  metadata: Record<string, string>;
  /** `{repo, git_common_dir, branch, base}`; `null`: a plain directory. */
  workspace: Workspace | null;
  /** Given at create; `null`: its profile's. */
  network: NetworkPolicy | null;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  finished_at: string | null;
}

/** The row as SQLite holds it: the JSON columns as text. */
type StoredRow = Omit<
  NodeRow,
  | 'waiting_on'
  | 'scopes'
  | 'model'
  | 'budgets'
  | 'outcome'
  | 'output_schema'
  | 'metadata'
  | 'workspace'
  | 'network'
> & {
  waiting_on: string | null;
  scopes: string | null;
  model: string;
  budgets: string;
  outcome: string | null;
  output_schema: string | null;
  metadata: string;
  workspace: string | null;
  network: string | null;
};

function parseRow(r: StoredRow): NodeRow {
  return {
    ...r,
    waiting_on: fromJson<WaitingOn>(r.waiting_on),
    scopes: fromJson<string[]>(r.scopes),
    model: JSON.parse(r.model) as StoredModel,
    budgets: JSON.parse(r.budgets) as Budgets,
    outcome: fromJson<Outcome>(r.outcome),
    output_schema: fromJson<Record<string, unknown>>(r.output_schema),
    metadata: JSON.parse(r.metadata) as Record<string, string>,
    workspace: fromJson<Workspace>(r.workspace),
    network: r.network === null ? null : networkOf(r.network),
  };
}

function columnsOf(row: NodeRow): StoredRow {
  return {
    ...row,
    waiting_on: toJson(row.waiting_on),
    scopes: toJson(row.scopes),
    model: JSON.stringify(row.model),
    budgets: JSON.stringify(row.budgets),
    outcome: toJson(row.outcome),
    output_schema: toJson(row.output_schema),
    metadata: JSON.stringify(row.metadata),
    workspace: toJson(row.workspace),
    network: row.network === null ? null : networkText(row.network),
  };
}

const parsed = (rows: unknown[]): NodeRow[] => (rows as StoredRow[]).map(parseRow);
const parsedOne = (row: unknown): NodeRow | undefined =>
  row === undefined ? undefined : parseRow(row as StoredRow);

/** Which nodes a caller may see (docs/nodes.md "Visibility"). */
export type Visibility =
  | { kind: 'all' }
  /**
   * An app: the nodes it created and every node of their trees; on reads, also those of each app
   * in `readable` by the same rule (`svc:conversations:read:app:<id>`, docs/nodes.md).
   */
  | { kind: 'app'; appId: string; readable?: readonly string[] }
  /** A node token: the nodes of its own tree. */
  | { kind: 'tree'; rootId: string };

export interface NodeFilter {
  states?: readonly NodeState[] | undefined;
  /** A node id, or `'none'` for roots only. */
  parentId?: string | undefined;
  rootId?: string | undefined;
  runId?: string | undefined;
  profile?: string | undefined;
  /** Newest first: only ids before this one. */
  before?: string | undefined;
  limit: number;
}

/**
 * The visibility rule as SQL over a `nodes` row aliased `n`, bound with `visibilityParams`;
 * exported so reads that join nodes (the canvas) filter by the same rule.
 */
export const VISIBLE = `(:vis = 'all'
  OR (:vis = 'app' AND (n.app_id = :vis_id
    OR n.app_id IN (SELECT value FROM json_each(:vis_read))
    OR EXISTS (SELECT 1 FROM nodes r WHERE r.id = n.root_id AND (r.app_id = :vis_id
      OR r.app_id IN (SELECT value FROM json_each(:vis_read))))))
  OR (:vis = 'tree' AND n.root_id = :vis_id))`;

/** The parameters `VISIBLE` reads; `vis_read` is the JSON array of an app's readable app ids. */
export function visibilityParams(vis: Visibility): {
  vis: string;
  vis_id: string | null;
  vis_read: string;
} {
  return {
    vis: vis.kind,
    vis_id: vis.kind === 'app' ? vis.appId : vis.kind === 'tree' ? vis.rootId : null,
    vis_read: JSON.stringify(vis.kind === 'app' ? (vis.readable ?? []) : []),
  };
}

/** The statements of `nodeStore`, prepared once per database. */
function prepare(db: Db) {
  return {
    insert: db.sqlite.prepare(
      `INSERT INTO nodes (id, parent_id, root_id, run_id, app_id, profile, title, task, state,
         state_reason, waiting_on, scopes, model, budgets, outcome, output_schema, metadata,
         workspace, network, created_at, updated_at)
       VALUES (:id, :parent_id, :root_id, :run_id, :app_id, :profile, :title, :task, :state,
         :state_reason, :waiting_on, :scopes, :model, :budgets, :outcome, :output_schema, :metadata,
         :workspace, :network, :created_at, :updated_at)`,
    ),
    get: db.sqlite.prepare('SELECT * FROM nodes WHERE id = ?'),
    state: db.sqlite.prepare('SELECT state FROM nodes WHERE id = ?'),
    // Stops at the first descendant still working: a settled tree is read through once.
    openBelow: db.sqlite.prepare(
      `WITH RECURSIVE sub(id) AS (
         SELECT id FROM nodes WHERE parent_id = ?
         UNION ALL SELECT n.id FROM nodes n JOIN sub ON n.parent_id = sub.id)
       SELECT 1 AS open FROM nodes n JOIN sub ON sub.id = n.id
         WHERE n.state NOT IN (${FINAL_STATES.map((s) => `'${s}'`).join(', ')}) LIMIT 1`,
    ),
    visible: db.sqlite.prepare(`SELECT * FROM nodes n WHERE n.id = :id AND ${VISIBLE}`),
    save: db.sqlite.prepare(
      `UPDATE nodes SET parent_id = :parent_id, root_id = :root_id, run_id = :run_id,
         title = :title, task = :task, state = :state, state_reason = :state_reason,
         waiting_on = :waiting_on, budgets = :budgets, turns = :turns,
         input_tokens = :input_tokens, output_tokens = :output_tokens, cost_usd = :cost_usd,
         outcome = :outcome, metadata = :metadata, updated_at = :updated_at,
         started_at = :started_at, finished_at = :finished_at
       WHERE id = :id`,
    ),
    saveUsage: db.sqlite.prepare(
      `UPDATE nodes SET turns = :turns, input_tokens = :input_tokens,
         output_tokens = :output_tokens, cost_usd = :cost_usd, updated_at = :updated_at
       WHERE id = :id`,
    ),
    list: db.sqlite.prepare(
      `SELECT * FROM nodes n WHERE ${VISIBLE}
         AND (:states IS NULL OR n.state IN (SELECT value FROM json_each(:states)))
         AND (:parent IS NULL OR (:parent = 'none' AND n.parent_id IS NULL) OR n.parent_id = :parent)
         AND (:root IS NULL OR n.root_id = :root)
         AND (:run IS NULL OR n.run_id = :run)
         AND (:profile IS NULL OR n.profile = :profile)
         AND (:before IS NULL OR n.id < :before)
       ORDER BY n.id DESC LIMIT :limit`,
    ),
    children: db.sqlite.prepare('SELECT * FROM nodes WHERE parent_id = ? ORDER BY id'),
    // Descendants, nearest first: a cascade visits parents before their children.
    descendants: db.sqlite.prepare(
      `WITH RECURSIVE sub(id, depth) AS (
         SELECT id, 1 FROM nodes WHERE parent_id = ?
         UNION ALL SELECT n.id, sub.depth + 1 FROM nodes n JOIN sub ON n.parent_id = sub.id)
       SELECT n.* FROM nodes n JOIN sub ON sub.id = n.id ORDER BY sub.depth, n.id`,
    ),
    // One state, so the count is read from the `nodes_state` index (`IN (json_each …)` scans).
    countOfState: db.sqlite.prepare(`SELECT count(*) AS n FROM nodes WHERE state = ?`),
    oldestOfState: db.sqlite.prepare(`SELECT * FROM nodes WHERE state = ? ORDER BY id LIMIT ?`),
    ofStates: db.sqlite.prepare(
      `SELECT * FROM nodes WHERE state IN (SELECT value FROM json_each(?))
         AND (? IS NULL OR root_id = ?) ORDER BY id`,
    ),
    treeUsage: db.sqlite.prepare(
      `SELECT coalesce(sum(turns), 0) AS turns, coalesce(sum(input_tokens), 0) AS input_tokens,
         coalesce(sum(output_tokens), 0) AS output_tokens, coalesce(sum(cost_usd), 0) AS cost_usd
       FROM nodes WHERE root_id = ?`,
    ),
    treeIds: db.sqlite.prepare('SELECT id FROM nodes WHERE root_id = ?'),
    // Timer waits, read through the `nodes_state` index: the waiting nodes are few.
    soonestTimer: db.sqlite.prepare(
      `SELECT min(json_extract(waiting_on, '$.until')) AS until FROM nodes
       WHERE state = 'waiting' AND json_extract(waiting_on, '$.for') = 'timer'`,
    ),
    timersDue: db.sqlite.prepare(
      `SELECT * FROM nodes WHERE state = 'waiting' AND json_extract(waiting_on, '$.for') = 'timer'
         AND json_extract(waiting_on, '$.until') <= ? ORDER BY id`,
    ),
    treeWorktrees: db.sqlite.prepare('SELECT id, workspace FROM nodes WHERE root_id = ?'),
    deleteTree: db.sqlite.prepare(
      `DELETE FROM nodes WHERE id IN (
         WITH RECURSIVE sub(id) AS (SELECT ? UNION ALL SELECT n.id FROM nodes n JOIN sub ON n.parent_id = sub.id)
         SELECT id FROM sub)`,
    ),
  };
}

export function nodeStore(db: Db) {
  const q = prepare(db);
  const visParams = visibilityParams;

  // Counts per state, dropped on every write to `nodes` and kept only when read outside a
  // transaction (one that rolls back would leave a count of rows that never were): `GET
  // /v1/status` reads the queue length on every call, and a WAL read costs more than the answer.
  const counts = new Map<NodeState, number>();

  return {
    insert(row: NodeRow): void {
      counts.clear();
      const { turns, input_tokens, output_tokens, cost_usd, started_at, finished_at, ...rest } =
        columnsOf(row);
      q.insert.run({ ...rest });
    },
    get(id: string): NodeRow | undefined {
      return parsedOne(q.get.get(id));
    },
    /** Its state alone, with no JSON column parsed (a stream asks on every commit). */
    stateOf(id: string): NodeState | undefined {
      return (q.state.get(id) as { state: NodeState } | undefined)?.state;
    },
    /** Whether a node below `id` is not final yet. */
    openBelow(id: string): boolean {
      return q.openBelow.get(id) !== undefined;
    },
    /** The node if `vis` may see it, else `undefined` (answered as 404 by the caller). */
    visible(id: string, vis: Visibility): NodeRow | undefined {
      return parsedOne(q.visible.get({ id, ...visParams(vis) }));
    },
    /** Writes every mutable column of `row` back. */
    save(row: NodeRow): void {
      counts.clear();
      const {
        app_id,
        profile,
        scopes,
        model,
        output_schema,
        workspace,
        network,
        created_at,
        ...mutable
      } = columnsOf(row);
      q.save.run({ ...mutable });
    },
    /** Writes just the row's usage and `updated_at`: a turn's record changes nothing else. */
    saveUsage(row: NodeRow): void {
      const { id, turns, input_tokens, output_tokens, cost_usd, updated_at } = row;
      q.saveUsage.run({ id, turns, input_tokens, output_tokens, cost_usd, updated_at });
    },
    list(vis: Visibility, f: NodeFilter): NodeRow[] {
      const rows = q.list.all({
        ...visParams(vis),
        states: f.states === undefined ? null : JSON.stringify(f.states),
        parent: f.parentId ?? null,
        root: f.rootId ?? null,
        run: f.runId ?? null,
        profile: f.profile ?? null,
        before: f.before ?? null,
        limit: f.limit,
      });
      return parsed(rows);
    },
    /** The soonest `until` of a node waiting on a timer (ISO), or `null`. */
    soonestTimer(): string | null {
      return (q.soonestTimer.get() as { until: string | null }).until;
    },
    /** The nodes waiting on a timer whose `until` is `at` or before. */
    timersDue(at: string): NodeRow[] {
      return parsed(q.timersDue.all(at));
    },
    children(id: string): NodeRow[] {
      return parsed(q.children.all(id));
    },
    /** Every node below `id`, parents before their children. */
    descendants(id: string): NodeRow[] {
      return parsed(q.descendants.all(id));
    },
    /** Nodes in one of `states`, optionally of one tree, oldest first. */
    inStates(states: readonly NodeState[], rootId: string | null = null): NodeRow[] {
      return parsed(q.ofStates.all(JSON.stringify(states), rootId, rootId));
    },
    /**
     * The oldest `limit` nodes in `state`: the supervisor's next launches, read without the
     * rest of a long queue (each row's JSON columns parsed costs).
     */
    oldestInState(state: NodeState, limit: number): NodeRow[] {
      return parsed(q.oldestOfState.all(state, limit));
    },
    /** How many nodes are in `state`: a count, without reading or building the rows. */
    countInState(state: NodeState): number {
      const known = counts.get(state);
      if (known !== undefined) return known;
      const n = (q.countOfState.get(state) as { n: number }).n;
      if (!db.inTransaction()) counts.set(state, n);
      return n;
    },
    /** Usage summed over a tree (a run's usage). */
    treeUsage(rootId: string): Usage {
      return { ...(q.treeUsage.get(rootId) as unknown as Usage) };
    },
    treeIds(rootId: string): string[] {
      return (q.treeIds.all(rootId) as { id: string }[]).map((r) => r.id);
    },
    /** What removing a tree's worktrees needs of its nodes: their ids and workspaces. */
    treeWorktrees(rootId: string): Pick<NodeRow, 'id' | 'workspace'>[] {
      return (q.treeWorktrees.all(rootId) as Pick<StoredRow, 'id' | 'workspace'>[]).map((r) => ({
        id: r.id,
        workspace: fromJson<Workspace>(r.workspace),
      }));
    },
    /** Deletes a node and everything below it (turns, mail, reports, jobs cascade). */
    deleteTree(id: string): void {
      counts.clear();
      q.deleteTree.run(id);
    },
  };
}

export type NodeStore = ReturnType<typeof nodeStore>;

/** A stored network: `none`, `host`, or an `{allow}` object's JSON. */
function networkOf(text: string): NetworkPolicy {
  return text.startsWith('{') ? (JSON.parse(text) as NetworkPolicy) : (text as NetworkPolicy);
}

/** A network as stored. */
function networkText(network: NetworkPolicy): string {
  return typeof network === 'string' ? network : JSON.stringify(network);
}
