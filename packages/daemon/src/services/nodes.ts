/**
 * Nodes (docs/nodes.md): creating them inside their creator's scope ceiling, every state change
 * through the protocol's state machine with its `node.state` event in the same transaction
 * (plus `run.state`/`run.outcome` for a run's root), visibility, mail, the tree operations and
 * waits. Processes are the runtime's business (`NodeRuntime`): this service only tells it when a
 * node was queued or must stop.
 */
import {
  type Budgets,
  type Ceiling,
  DEFAULT_BUDGETS,
  exhaustedBudget,
  isFinal,
  mergeBudgets,
  type NetworkPolicy,
  type NodeAction,
  type NodeState,
  newId,
  type nodeCreateBodySchema,
  type nodeForkBodySchema,
  type nodeRecycleBodySchema,
  type nodeUpdateBodySchema,
  type nodeWaitBodySchema,
  transition,
} from '@svc/protocol';
import type { z } from 'zod';
import { ApiError } from '../errors.ts';
import type { ModelService } from '../models/service.ts';
import type { NodeRuntime, Principal } from '../ports.ts';
import type { ProfileService } from '../profiles/service.ts';
import type { ProfileSettings } from '../profiles/types.ts';
import { grantNetwork } from '../sandbox/network-grant.ts';
import type { Store } from '../store/index.ts';
import type { Job } from '../store/jobs.ts';
import { toJson } from '../store/json.ts';
import type { Mail, MailFrom } from '../store/mail.ts';
import {
  type Node,
  type NodeFilter,
  type NodeRow,
  networkOf,
  networkText,
  type Outcome,
  type StoredModel,
  toNode,
  type Visibility,
  type WaitingOn,
  workspaceOf,
} from '../store/nodes.ts';
import type { EventLog } from './events.ts';
import { interrupted, settleOpenRecords } from './final-records.ts';
import { requireMayMail, requireWithinCeiling, scopeCeiling } from './node-ceiling.ts';
import { idleRuntime } from './node-runtime.ts';
import { compileOutputSchema, compileUsable } from './output-schema.ts';
import { appsReadable, checkScopes } from './scopes.ts';
import { forkWorkspace, resolveWorkspace } from './workspace.ts';

/** The longest delay a Node timer takes (a signed 32-bit count of ms). */
const MAX_TIMER_MS = 2 ** 31 - 1;

export type CreateBody = z.output<typeof nodeCreateBodySchema>;
export type UpdateBody = z.output<typeof nodeUpdateBodySchema>;
export type ForkBody = z.output<typeof nodeForkBodySchema>;
export type RecycleBody = z.output<typeof nodeRecycleBodySchema>;
export type WaitBody = z.output<typeof nodeWaitBodySchema>;

/** Where a new node goes when it starts a run (`runs.start`): no parent, the app's grant. */
export interface RunPlacement {
  runId: string;
  grant: Ceiling;
}

/** What a state change may set besides the state. */
export interface MoveOptions {
  reason?: string | null | undefined;
  waitingOn?: WaitingOn | undefined;
  outcome?: Omit<Outcome, 'state' | 'finished_at'> | undefined;
  /** `false`: the caller tells the runtime itself (a relaunch stops the old broker first). */
  wake?: false | undefined;
  /** On `start`: the tool names the broker offers the model, for the `node.state` event. */
  tools?: readonly string[] | undefined;
}

const TITLE_FROM_TASK = 80;
const DEFAULT_PROFILE = 'default';

export interface NodeServiceDeps {
  store: Store;
  events: EventLog;
  profiles: Pick<ProfileService, 'settings'>;
  models: Pick<ModelService, 'config' | 'requireReady'>;
  /** svc's home, which no git workspace may lie in (its worktrees aside). */
  home?: string | undefined;
}

export function nodeService({ store, events, profiles, models, home }: NodeServiceDeps) {
  let runtime: NodeRuntime = idleRuntime;
  const timers = new Map<string, NodeJS.Timeout>();
  /** Called in the transaction that makes a node final (`onFinal`). */
  const finalHooks = new Set<(row: NodeRow, afterCommit: (cb: () => void) => void) => void>();
  const now = () => new Date().toISOString();

  // ── who sees what ─────────────────────────────────────────────────────────────────────────

  function visibility(principal: Principal): Visibility {
    if (principal.kind === 'owner') return { kind: 'all' };
    if (principal.kind === 'node') {
      const own = principal.nodeId === null ? undefined : store.nodes.get(principal.nodeId);
      // A token whose node is gone sees nothing: the empty root id matches no node.
      return { kind: 'tree', rootId: own?.root_id ?? '' };
    }
    return { kind: 'app', appId: principal.appId ?? '' };
  }

  /**
   * What a caller may read: its `visibility`, plus, for an app token, every app its list names
   * in `svc:conversations:read:app:<id>` (SPEC "Scope vocabulary"). Read routes only: a write
   * keeps `visibility`, so another app's node stays 404 there.
   */
  function readVisibility(principal: Principal): Visibility {
    const vis = visibility(principal);
    if (vis.kind !== 'app' || principal.kind !== 'app') return vis;
    const readable = appsReadable(principal.scopes ?? [], 'conversations').filter(
      (app) => app !== vis.appId, // its own it sees already
    );
    return readable.length === 0 ? vis : { ...vis, readable };
  }

  /** The node if the caller may see it; else 404, as if it did not exist. */
  function visibleRow(id: string, principal: Principal, field = 'id'): NodeRow {
    return rowIn(id, visibility(principal), field);
  }

  /** `visibleRow` for read routes: by `readVisibility`. */
  function readableRow(id: string, principal: Principal, field = 'id'): NodeRow {
    return rowIn(id, readVisibility(principal), field);
  }

  function rowIn(id: string, vis: Visibility, field: string): NodeRow {
    const row = store.nodes.visible(id, vis);
    if (row === undefined) throw new ApiError('not_found', `no node ${id}`, { field });
    return row;
  }

  function sender(principal: Principal): MailFrom {
    if (principal.kind === 'owner') return { kind: 'owner', id: null };
    if (principal.kind === 'node') return { kind: 'node', id: principal.nodeId };
    return { kind: 'app', id: principal.appId };
  }

  /** The grant every node of run `runId`'s tree stays inside (`null`: no run, or the owner's). */
  function grantOf(runId: string | null | undefined): Ceiling {
    if (runId == null) return null;
    const run = store.runs.get(runId);
    return run?.grant_scopes == null ? null : (JSON.parse(run.grant_scopes) as string[]);
  }

  // ── state changes ─────────────────────────────────────────────────────────────────────────

  /**
   * Applies `action` to the node in `row` (mutated and saved) inside the caller's transaction,
   * writing `node.state` when the state changes, and the run's events for a run's root. Refused
   * transitions throw 409 `invalid_state`. Side effects on processes run after the commit.
   */
  function move(
    row: NodeRow,
    action: NodeAction,
    opts: MoveOptions,
    afterCommit: (cb: () => void) => void,
  ): NodeRow {
    const t = transition(row.state, action);
    if (!t.ok) throw new ApiError('invalid_state', t.message);
    const from = row.state;
    const at = now();
    row.state = t.to;
    row.state_reason = t.to === 'queued' || t.to === 'running' ? null : (opts.reason ?? null);
    row.waiting_on = t.to === 'waiting' ? JSON.stringify(opts.waitingOn ?? { for: 'mail' }) : null;
    if (t.to === 'running' && row.started_at === null) row.started_at = at;
    let outcome: Outcome | null = null;
    if (isFinal(t.to)) {
      outcome = {
        state: t.to as Outcome['state'],
        result: opts.outcome?.result ?? null,
        summary: opts.outcome?.summary ?? null,
        error: opts.outcome?.error ?? null,
        finished_at: at,
      };
      row.outcome = JSON.stringify(outcome);
      row.finished_at = at;
    } else {
      row.outcome = null;
      row.finished_at = null;
    }
    row.updated_at = at;
    store.nodes.save(row);
    if (from !== t.to) {
      const reason = row.state_reason;
      // Whatever the node leaves open is settled now, so that its outcome is its last event.
      if (outcome !== null) {
        const why = reason ?? `the node is ${t.to}`;
        settleOpenRecords(store, events, row.id, interrupted(why), at);
      }
      events.record('node.state', row.id, {
        node_id: row.id,
        from,
        to: t.to,
        action,
        reason,
        ...(opts.tools !== undefined && { tools: [...opts.tools] }),
      });
      const runId = runOfRoot(row);
      if (runId !== null) {
        events.record('run.state', runId, {
          run_id: runId,
          node_id: row.id,
          from,
          to: t.to,
          reason,
        });
      }
      if (outcome !== null) {
        events.record('node.outcome', row.id, { node_id: row.id, outcome });
        if (runId !== null) events.record('run.outcome', runId, { run_id: runId, outcome });
        wakeParentIfSatisfied(row, afterCommit);
        for (const hook of finalHooks) hook(row, afterCommit);
      }
    }
    if (t.to === 'queued' && opts.wake !== false) afterCommit(() => runtime.wake(row.id));
    if (t.to === 'waiting' && opts.waitingOn?.for === 'timer') {
      const until = opts.waitingOn.until;
      afterCommit(() => armTimer(row.id, until));
    }
    return row;
  }

  /** The run whose root this node is, if any. */
  function runOfRoot(row: NodeRow): string | null {
    return row.parent_id === null && row.run_id !== null ? row.run_id : null;
  }

  /** `{for: 'children'}` holds: every awaited child final (`all`), or one of them (`any`). */
  function childrenDone(waiting: Extract<WaitingOn, { for: 'children' }>): boolean {
    const finals = waiting.node_ids.map((id) => {
      const child = store.nodes.get(id);
      return child === undefined || isFinal(child.state);
    });
    return waiting.mode === 'any' ? finals.some(Boolean) : finals.every(Boolean);
  }

  function wakeParentIfSatisfied(child: NodeRow, afterCommit: (cb: () => void) => void): void {
    if (child.parent_id === null) return;
    const parent = store.nodes.get(child.parent_id);
    if (parent?.state !== 'waiting' || parent.waiting_on === null) return;
    const waiting = JSON.parse(parent.waiting_on) as WaitingOn;
    if (waiting.for !== 'children' || !waiting.node_ids.includes(child.id)) return;
    if (childrenDone(waiting)) move(parent, 'wake', {}, afterCommit);
  }

  function armTimer(id: string, until: string): void {
    clearTimeout(timers.get(id));
    const left = Math.max(0, Date.parse(until) - Date.now());
    if (left > MAX_TIMER_MS) {
      // A Node timer past 2^31-1 ms (24.8 days) fires at once (TimeoutOverflowWarning): hop.
      const hop = setTimeout(() => armTimer(id, until), MAX_TIMER_MS);
      hop.unref();
      timers.set(id, hop);
      return;
    }
    const timer = setTimeout(() => {
      timers.delete(id);
      store.db.transaction((afterCommit) => {
        const row = store.nodes.get(id);
        if (row?.state !== 'waiting' || row.waiting_on === null) return;
        const waiting = JSON.parse(row.waiting_on) as WaitingOn;
        if (waiting.for === 'timer' && waiting.until === until) move(row, 'wake', {}, afterCommit);
      });
    }, left);
    timer.unref();
    timers.set(id, timer);
  }

  /** One state change in its own transaction, answering the node. */
  function act(id: string, action: NodeAction, opts: MoveOptions = {}): Node {
    return store.db.transaction((afterCommit) => {
      const row = store.nodes.get(id);
      if (row === undefined) throw new ApiError('not_found', `no node ${id}`, { field: 'id' });
      return toNode(move(row, action, opts, afterCommit));
    });
  }

  function postMail(row: NodeRow, from: MailFrom, text: string): Mail {
    const mail = store.mail.insert(row.id, from, text, now());
    events.record('node.mail', row.id, { node_id: row.id, mail });
    return mail;
  }

  /** Mail arrived or already waits: a waiting node queues again (a final one refuses: 409). */
  function deliver(
    row: NodeRow,
    from: MailFrom,
    text: string,
    afterCommit: (cb: () => void) => void,
  ): Mail {
    const allowed = transition(row.state, 'message');
    if (!allowed.ok) throw new ApiError('invalid_state', allowed.message);
    const mail = postMail(row, from, text);
    if (row.state === 'waiting') move(row, 'message', {}, afterCommit);
    return mail;
  }

  // ── creation ──────────────────────────────────────────────────────────────────────────────

  function profileOf(
    name: string,
    explicit: boolean,
    principal: Principal,
  ): ProfileSettings | null {
    try {
      return profiles.settings(name, principal);
    } catch (error) {
      // The default profile need not exist; a named one must.
      if (!explicit && error instanceof ApiError && error.code === 'not_found') return null;
      if (error instanceof ApiError && error.code === 'not_found') {
        throw new ApiError('not_found', `no profile '${name}'`, { field: 'profile' });
      }
      throw error;
    }
  }

  /**
   * body → the parent's (a child that names no profile runs as its parent does) → the owner's
   * per-profile override → the profile's → the configured default. A scripted parent's turns are
   * its own (a child replaying them would spawn again): its child takes the profile's model.
   */
  function chooseModel(
    body: CreateBody,
    profile: string,
    settings: ProfileSettings | null,
    parent: NodeRow | undefined,
  ): StoredModel {
    if (body.model !== undefined) return body.model as StoredModel;
    const inherited =
      parent !== undefined && body.profile === undefined
        ? (JSON.parse(parent.model) as StoredModel)
        : undefined;
    if (inherited !== undefined && inherited.provider !== 'scripted') {
      return { provider: inherited.provider, model: inherited.model };
    }
    const config = models.config();
    const chosen =
      config.profiles[profile] ?? (settings?.model as StoredModel | null) ?? config.default;
    if (chosen === null || chosen === undefined) {
      if (inherited !== undefined) {
        throw new ApiError(
          'invalid_request',
          `the parent's 'scripted' turns are its own and profile '${profile}' has no model: give the child a model, e.g. spawn's model {provider: 'scripted', model, script: [turns]}`,
          { field: 'model' },
        );
      }
      throw new ApiError(
        'invalid_request',
        `no model: name one in 'model', give profile '${profile}' one, or set a default with svc models config set`,
        { field: 'model' },
      );
    }
    return chosen as StoredModel;
  }

  /** The most network `principal` may give a node it makes; `null`: any (the owner). */
  function creatorNetwork(principal: Principal): NetworkPolicy | null {
    if (principal.kind === 'owner') return null;
    if (principal.kind !== 'node' || principal.nodeId === null) return 'none';
    const own = store.nodes.get(principal.nodeId);
    if (own?.network != null) return networkOf(own.network);
    if (own === undefined) return 'none';
    try {
      return profiles.settings(own.profile, null).network ?? 'none';
    } catch {
      return 'none'; // its profile is gone: nothing to give
    }
  }

  /**
   * Creates a queued node in the caller's transaction: its place in the tree, scopes inside the
   * creator's ceiling (and the run's grant), model and budgets from the body, profile and config.
   */
  function insertNode(
    body: CreateBody,
    principal: Principal,
    afterCommit: (cb: () => void) => void,
    run?: RunPlacement,
  ): NodeRow {
    const parentId =
      body.parent_id ?? (principal.kind === 'node' && run === undefined ? principal.nodeId : null);
    const parent = parentId === null ? undefined : visibleRow(parentId, principal, 'parent_id');
    // A child runs as its parent does unless it names another profile.
    const profileName = body.profile ?? parent?.profile ?? DEFAULT_PROFILE;
    const settings = profileOf(profileName, body.profile !== undefined, principal);
    const grant = run?.grant ?? grantOf(parent?.run_id);
    const scopes = checkScopes(
      body.scopes ?? settings?.scopes ?? undefined,
      scopeCeiling(principal),
      grant,
    );
    if (body.output_schema !== undefined) compileUsable(body.output_schema);
    const network = grantNetwork(body.network, creatorNetwork(principal));
    // Refused now, not failed later: a model that cannot run as things stand.
    const model = chooseModel(body, profileName, settings, parent);
    models.requireReady(model as Parameters<typeof models.requireReady>[0]);
    const id = newId('node');
    const wanted = body.workspace ?? settings?.workspace ?? undefined;
    const workspace =
      wanted === undefined
        ? null
        : resolveWorkspace(wanted, id, {
            ceiling: scopeCeiling(principal),
            appId: principal.appId,
            home,
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
      scopes: scopes === null ? null : JSON.stringify(scopes),
      model: JSON.stringify(model),
      budgets: JSON.stringify(mergeBudgets(settings?.budgets ?? DEFAULT_BUDGETS, body.budgets)),
      turns: 0,
      input_tokens: 0,
      output_tokens: 0,
      cost_usd: 0,
      outcome: null,
      output_schema: body.output_schema === undefined ? null : JSON.stringify(body.output_schema),
      metadata: JSON.stringify(body.metadata ?? {}),
      workspace: toJson(workspace),
      network: network === undefined ? null : networkText(network),
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
    afterCommit(() => runtime.wake(id));
    return row;
  }

  /**
   * Every node of the subtree under `row` (itself included) moves to `rootId` and `runId`. Into a
   * run, every one must already lie inside its grant (create's check), else 403 `scope_missing`
   * and nothing moves. No list is narrowed here: a node's list never changes once made, and a
   * live broker holds a token with it; so a node with no list (`null`: everything) is refused.
   */
  function rehang(
    row: NodeRow,
    parentId: string | null,
    rootId: string,
    runId: string | null,
    at: string,
  ): void {
    const subtree = [row, ...store.nodes.descendants(row.id)];
    const grant = grantOf(runId);
    for (const node of grant === null ? [] : subtree) {
      if (node.scopes === null) {
        throw new ApiError(
          'scope_missing',
          `node ${node.id} holds every scope (no list), which is outside the app's grant of run ${runId}`,
          { field: 'scopes', received: grant },
        );
      }
      checkScopes(undefined, JSON.parse(node.scopes) as string[], grant);
    }
    for (const node of subtree) {
      if (node.id === row.id) node.parent_id = parentId;
      node.root_id = rootId;
      node.run_id = runId;
      node.updated_at = at;
      store.nodes.save(node);
    }
  }

  function stopAll(
    ids: readonly string[],
    reason: 'cancel' | 'interrupt' | 'relaunch',
  ): Promise<void> {
    return Promise.all(ids.map((id) => runtime.stop(id, reason))).then(() => {});
  }

  return {
    /** Plugs in the process side (the supervisor). */
    useRuntime(r: NodeRuntime): void {
      runtime = r;
    },

    visibility,
    visibleRow,
    readVisibility,
    readableRow,
    sender,

    /**
     * Runs `hook` in the transaction that makes a node final (done, failed, cancelled), so what
     * hangs on the node (its open human requests) ends with it, or not at all.
     */
    onFinal(hook: (row: NodeRow, afterCommit: (cb: () => void) => void) => void): void {
      finalHooks.add(hook);
    },

    /** Re-arms the timers of nodes waiting on one (after a restart). */
    start(): void {
      for (const row of store.nodes.inStates(['waiting'])) {
        const waiting = row.waiting_on === null ? null : (JSON.parse(row.waiting_on) as WaitingOn);
        if (waiting?.for === 'timer') armTimer(row.id, waiting.until);
      }
    },

    close(): void {
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
    },

    /** `nodes.create` (and a run's root through `runs.start`). */
    create(body: CreateBody, principal: Principal, run?: RunPlacement): Node {
      return store.db.transaction((afterCommit) =>
        toNode(insertNode(body, principal, afterCommit, run)),
      );
    },

    /** The create inside a larger transaction (runs.start writes its run row with it). */
    insertNode,

    get(id: string, principal: Principal): Node {
      return toNode(readableRow(id, principal));
    },

    list(principal: Principal, filter: NodeFilter): Node[] {
      return store.nodes.list(readVisibility(principal), filter).map(toNode);
    },

    update(id: string, body: UpdateBody, principal: Principal): Node {
      return store.db.transaction((afterCommit) => {
        const row = visibleRow(id, principal);
        const changes: Record<string, unknown> = {};
        if (body.title !== undefined) row.title = changes.title = body.title;
        if (body.metadata !== undefined) {
          row.metadata = JSON.stringify(body.metadata);
          changes.metadata = body.metadata;
        }
        let budgets: Budgets | undefined;
        if (body.budgets !== undefined) {
          budgets = mergeBudgets(JSON.parse(row.budgets) as Budgets, body.budgets);
          row.budgets = JSON.stringify(budgets);
          changes.budgets = budgets;
        }
        row.updated_at = now();
        store.nodes.save(row);
        events.record('node.updated', id, { node_id: id, changes });
        // Raising the budget a node is parked at is the way on (docs/nodes.md "Budgets").
        const waiting = row.waiting_on === null ? null : (JSON.parse(row.waiting_on) as WaitingOn);
        if (budgets !== undefined && row.state === 'waiting' && waiting?.for === 'budget') {
          if (exhaustedBudget(budgets, toNode(row).usage) === null)
            move(row, 'wake', {}, afterCommit);
        }
        return toNode(row);
      });
    },

    /** Cancels the node and, nearest first, every descendant not yet final (promoted ones left). */
    async cancel(id: string, reason: string | undefined, principal: Principal): Promise<Node> {
      const stopped: string[] = [];
      const node = store.db.transaction((afterCommit) => {
        const row = visibleRow(id, principal);
        const why = reason ?? 'cancelled';
        const error = { code: 'cancelled', message: why };
        move(
          row,
          'cancel',
          { reason: why, outcome: { result: null, summary: null, error } },
          afterCommit,
        );
        stopped.push(row.id);
        for (const child of store.nodes.descendants(row.id)) {
          if (isFinal(child.state)) continue;
          const message = `an ancestor was cancelled: ${why}`;
          move(
            child,
            'cancel',
            {
              reason: message,
              outcome: { result: null, summary: null, error: { code: 'cancelled', message } },
            },
            afterCommit,
          );
          stopped.push(child.id);
        }
        return toNode(row);
      });
      await stopAll(stopped, 'cancel');
      return node;
    },

    async interrupt(id: string, reason: string | undefined, principal: Principal): Promise<Node> {
      const row = visibleRow(id, principal);
      const node = act(row.id, 'interrupt', {
        reason: reason ?? 'interrupted; waiting for a message',
      });
      await runtime.stop(row.id, 'interrupt');
      return node;
    },

    message(id: string, text: string, principal: Principal): Mail {
      return store.db.transaction((afterCommit) => {
        const row = visibleRow(id, principal);
        requireMayMail(row, principal);
        return deliver(row, sender(principal), text, afterCommit);
      });
    },

    /**
     * Mail for a final node, inside the caller's transaction: it moves nothing (`deliver` refuses
     * a final node) and is read if the node is revived or recycled.
     */
    leaveMail(row: NodeRow, from: MailFrom, text: string): Mail {
      return postMail(row, from, text);
    },

    /** Mail to a node the caller already resolved (runs.message, runs.reply). */
    deliver(row: NodeRow, from: MailFrom, text: string): Mail {
      return store.db.transaction((afterCommit) => deliver(row, from, text, afterCommit));
    },

    outcome(id: string, principal: Principal): Outcome {
      const node = toNode(readableRow(id, principal));
      if (node.outcome === null) {
        throw new ApiError(
          'invalid_state',
          `node is '${node.state}'; an outcome exists once it is done, failed or cancelled`,
        );
      }
      return node.outcome;
    },

    /** Records a result (from outside, or the node's submit tool); checks `output_schema`. */
    submit(id: string, body: { result?: unknown; summary?: string | undefined }): Node {
      return store.db.transaction((afterCommit) => {
        const row = store.nodes.get(id);
        if (row === undefined) throw new ApiError('not_found', `no node ${id}`, { field: 'id' });
        const allowed = transition(row.state, 'submit');
        if (!allowed.ok) throw new ApiError('invalid_state', allowed.message);
        if (row.output_schema !== null) {
          if (body.result === undefined) {
            throw new ApiError(
              'validation_failed',
              'this node has an output_schema: submit a result matching it',
              { field: 'result' },
            );
          }
          compileOutputSchema(JSON.parse(row.output_schema) as Record<string, unknown>)(
            body.result,
          );
        }
        const outcome = { result: body.result ?? null, summary: body.summary ?? null, error: null };
        return toNode(move(row, 'submit', { outcome }, afterCommit));
      });
    },

    /**
     * Stops the broker of a node submitted from outside, with every process it started: its work
     * is over, and it would hold a slot until its tools ended (a `sleep 600`, say).
     */
    stopBroker(id: string): Promise<void> {
      return runtime.stop(id, 'cancel');
    },

    /** A fatal fault: the node fails with it. */
    fail(id: string, error: { code: string; message: string }): Node {
      return act(id, 'fail', {
        reason: error.message,
        outcome: { result: null, summary: null, error },
      });
    },

    /** Any state change by id inside the caller's transaction (the broker plane's start, park, …). */
    move,
    act,

    revive(id: string, message: string | undefined, principal: Principal): Node {
      return store.db.transaction((afterCommit) => {
        const visible = visibleRow(id, principal);
        if (message !== undefined) requireWithinCeiling(visible, principal);
        const row = move(visible, 'revive', {}, afterCommit);
        if (message !== undefined) postMail(row, sender(principal), message);
        return toNode(row);
      });
    },

    reviveAll(states: readonly NodeState[], rootId: string | undefined): string[] {
      return store.db.transaction((afterCommit) => {
        const rows = store.nodes.inStates(states, rootId ?? null);
        for (const row of rows) move(row, 'revive', {}, afterCommit);
        return rows.map((r) => r.id);
      });
    },

    /** A done node takes a fresh task, delivered as mail; usage starts again from zero. */
    recycle(id: string, body: RecycleBody, principal: Principal): Node {
      return store.db.transaction((afterCommit) => {
        const row = visibleRow(id, principal);
        requireWithinCeiling(row, principal);
        const allowed = transition(row.state, 'recycle');
        if (!allowed.ok) throw new ApiError('invalid_state', allowed.message);
        row.task = body.task;
        row.title = body.title ?? titleOf(body.task);
        row.budgets = JSON.stringify(
          mergeBudgets(JSON.parse(row.budgets) as Budgets, body.budgets),
        );
        row.turns = row.input_tokens = row.output_tokens = row.cost_usd = 0;
        move(row, 'recycle', {}, afterCommit);
        postMail(row, sender(principal), body.task);
        return toNode(row);
      });
    },

    /** A new queued node with a copy of turns 1..through_turn; the source is untouched. */
    fork(id: string, body: ForkBody, principal: Principal): Node {
      return store.db.transaction((afterCommit) => {
        const source = visibleRow(id, principal);
        const sourceScopes =
          source.scopes === null ? null : (JSON.parse(source.scopes) as string[]);
        const parentId = body.parent_id === undefined ? source.parent_id : body.parent_id;
        const parent = parentId === null ? undefined : visibleRow(parentId, principal, 'parent_id');
        // Narrowing only: inside the source's list and the caller's own ceiling; then, in a run,
        // inside its grant as create has it (`null`, everything, narrows to the grant).
        const scopes = checkScopes(
          undefined,
          checkScopes(
            body.scopes ?? sourceScopes ?? undefined,
            scopeCeiling(principal),
            sourceScopes,
            "the forked node's scopes",
          ),
          grantOf(parent?.run_id),
        );
        const newId_ = newId('node');
        const sourceWorkspace = workspaceOf(source);
        const workspace =
          sourceWorkspace === null
            ? null
            : forkWorkspace(sourceWorkspace, newId_, {
                ceiling: scopeCeiling(principal),
                appId: principal.appId,
                home,
                from: `the workspace of ${source.id}`,
              });
        const at = now();
        const row: NodeRow = {
          ...source,
          workspace: toJson(workspace),
          id: newId_,
          parent_id: parent?.id ?? null,
          root_id: parent?.root_id ?? newId_,
          run_id: parent?.run_id ?? null,
          app_id: principal.appId,
          title: body.title ?? source.title,
          state: 'queued',
          state_reason: null,
          waiting_on: null,
          scopes: scopes === null ? null : JSON.stringify(scopes),
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
        store.turns.copy(source.id, newId_, through);
        events.record('node.state', newId_, {
          node_id: newId_,
          from: null,
          to: 'queued',
          action: 'fork',
          reason: `forked from ${source.id} through turn ${through}`,
        });
        if (body.task !== undefined) postMail(row, sender(principal), body.task);
        afterCommit(() => runtime.wake(newId_));
        return toNode(row);
      });
    },

    /** Detaches a node (and its subtree) into a tree of its own; a root is answered as it is. */
    promote(id: string, principal: Principal): Node {
      return store.db.transaction(() => {
        const row = visibleRow(id, principal);
        if (row.parent_id === null) return toNode(row);
        const at = now();
        rehang(row, null, row.id, null, at);
        events.record('node.updated', id, {
          node_id: id,
          changes: { parent_id: null, root_id: id },
        });
        return toNode(store.nodes.get(id)!);
      });
    },

    /** Attaches a node (and its subtree) under `parentId`: not itself nor a descendant. */
    demote(id: string, parentId: string, principal: Principal): Node {
      return store.db.transaction(() => {
        const row = visibleRow(id, principal);
        const parent = visibleRow(parentId, principal, 'parent_id');
        if (
          parent.id === row.id ||
          store.nodes.descendants(row.id).some((d) => d.id === parent.id)
        ) {
          throw new ApiError(
            'conflict',
            `${parentId} is ${id} or below it; a node cannot hang under itself`,
            { field: 'parent_id' },
          );
        }
        if (runOfRoot(row) !== null) {
          throw new ApiError(
            'conflict',
            `${id} is the root of run ${row.run_id}; a run keeps its root`,
            { field: 'id' },
          );
        }
        rehang(row, parent.id, parent.root_id, parent.run_id, now());
        events.record('node.updated', id, {
          node_id: id,
          changes: { parent_id: parent.id, root_id: parent.root_id },
        });
        return toNode(store.nodes.get(id)!);
      });
    },

    /**
     * Stops a running job: a node without a live broker settles it at once; otherwise the
     * broker's next directive lists it (`cancel_jobs`) and the broker records how it ended.
     */
    cancelJob(nodeId: string, jobId: string, principal: Principal): Job {
      return store.db.transaction((afterCommit) => {
        const row = visibleRow(nodeId, principal);
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
    },

    /** The viewer socket of the node's live broker, if the runtime has one. */
    async viewerSocket(nodeId: string): Promise<string | null> {
      return (await runtime.viewerSocket?.(nodeId)) ?? null;
    },

    /** Queues the root of the node's tree again; its broker restarts from the last recorded turn. */
    async relaunchRoot(id: string, principal: Principal): Promise<Node> {
      const row = visibleRow(id, principal);
      const node = act(row.root_id, 'relaunch', { wake: false });
      await runtime.stop(row.root_id, 'relaunch');
      runtime.wake(row.root_id);
      return node;
    },

    /** `nodes.yield`: the node waits for mail; mail already waiting queues it again at once. */
    yield(id: string, reason: string | undefined): Node {
      return store.db.transaction((afterCommit) => {
        const row = store.nodes.get(id)!;
        move(
          row,
          'yield',
          { reason: reason ?? 'yielded; waiting for a message', waitingOn: { for: 'mail' } },
          afterCommit,
        );
        if (store.mail.unacknowledged(id) > 0) move(row, 'wake', {}, afterCommit);
        return toNode(row);
      });
    },

    /**
     * `nodes.wait`: children (default every child not yet final), a human request or a timer. A
     * children wait that already holds changes nothing: the node stays `running`.
     */
    wait(id: string, body: WaitBody): Node {
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
          if (ids.length === 0 || childrenDone(waitingOn)) return toNode(row);
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
        move(row, 'wait', { reason, waitingOn }, afterCommit);
        if (answered || store.mail.unacknowledged(id) > 0) move(row, 'wake', {}, afterCommit);
        return toNode(row);
      });
    },
  };
}

export type NodeService = ReturnType<typeof nodeService>;

/** The task's first line, cut to 80 characters. */
export function titleOf(task: string): string {
  const line = task.trim().split('\n', 1)[0] ?? '';
  return (
    (line.length > TITLE_FROM_TASK ? `${line.slice(0, TITLE_FROM_TASK - 1)}…` : line) || 'untitled'
  );
}
