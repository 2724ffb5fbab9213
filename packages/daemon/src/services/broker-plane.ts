/**
 * The broker control plane (`brokerRoutes`, docs/nodes.md "The broker's life"): what a node's
 * own broker records, each change in one transaction with its event, and the directive every
 * answer carries. Also the supervisor's hooks (`SupervisorHooks`): a launch's model and env, and
 * what a crash, a lost broker or an unlaunchable node does to the node.
 *
 * Recording rules:
 * - a turn's `index` must be the next one; the last recorded index again with the same body (by
 *   fingerprint) answers the recorded turn, anything else is 409 `conflict`, so a retried record
 *   never doubles a turn;
 * - a tool result settles a pending call once; a repeat answers the recorded call. A stopped
 *   node's broker may still settle its calls (as interrupted), so a relaunch does not run them
 *   again;
 * - crashes and non-fatal faults count against a relaunch budget that a new turn resets: a broker
 *   that keeps dying without progress fails its node instead of looping for ever;
 * - a budget parks the node only when the next turn would go past it: once a budget is reached
 *   and the last turn has no call pending (its last result recorded, a turn without calls, or a
 *   claim with nothing left to run), so the turn that reaches a budget still runs its tools,
 *   `submit` included.
 */
import { createHash } from 'node:crypto';
import {
  availableTools,
  type Directive,
  exhaustedBudget,
  type FaultBody,
  isBuiltinTool,
  isFinal,
  type JobRecordBody as JobBody,
  MAIL_CLAIM_DEFAULT,
  newId,
  pluginToolName,
  type ReportBody,
  type ToolResultBody,
  type TurnRecordBody as TurnBody,
} from '@svc/protocol';
import { ApiError } from '../errors.ts';
import type { EventLog } from '../events/log.ts';
import { refusedCredentials } from '../models/readiness.ts';
import type { ModelService } from '../models/service.ts';
import type { ModelChoice } from '../models/types.ts';
import { settleOpenRecords } from '../nodes/final-records.ts';
import type { NodeService } from '../nodes/service.ts';
import type { Job } from '../nodes/store/jobs.ts';
import { type Node, type NodeRow, toNode } from '../nodes/store/nodes.ts';
import type { Turn } from '../nodes/store/turns.ts';
import { waitUntil } from '../nodes/wait-until.ts';
import { offeredPlugins } from '../plugins/offered.ts';
import { SUBMITTED, SUBMITTED_REASON, type SupervisorHooks } from '../ports.ts';
import type { ProfileService } from '../profiles/service.ts';
import type { SandboxService } from '../sandbox/service.ts';
import type { Store } from '../store/index.ts';

export type { Directive };

/** Crashes and non-fatal faults in a row (no new turn between them) before the node fails. */
export const DEFAULT_RELAUNCH_BUDGET = 3;

export interface BrokerPlaneDeps {
  store: Store;
  events: EventLog;
  nodes: Pick<NodeService, 'move' | 'submit'>;
  models: Pick<ModelService, 'connection'>;
  profiles: Pick<ProfileService, 'find' | 'envValues'>;
  sandbox: Pick<SandboxService, 'forNode'>;
  relaunchBudget?: number;
}

export function brokerPlane(deps: BrokerPlaneDeps) {
  const { store, events, nodes, models, profiles, sandbox } = deps;
  const budget = deps.relaunchBudget ?? DEFAULT_RELAUNCH_BUDGET;
  const now = () => new Date().toISOString();

  function row(id: string): NodeRow {
    const found = store.nodes.get(id);
    if (found === undefined) throw new ApiError('not_found', `no node ${id}`, { field: 'id' });
    return found;
  }

  /** What the node's state asks of its broker, with the jobs somebody asked to stop. */
  function directiveOf(node: NodeRow): Directive {
    const cancel_jobs = store.jobs.toCancel(node.id);
    if (node.state === 'running') return { action: 'continue', reason: null, cancel_jobs };
    const waiting = node.waiting_on;
    const action =
      node.state === 'waiting'
        ? waiting?.for === 'budget'
          ? 'park'
          : 'interrupt'
        : node.state === 'queued'
          ? 'interrupt' // relaunched: this broker makes way for a fresh one
          : 'cancel';
    const reason = node.state_reason ?? `the node is ${node.state}`;
    return { action, reason, cancel_jobs };
  }

  /**
   * Parks a running node whose budget is reached once nothing of its last turn is pending: the
   * broker's next step would be a model call past the budget.
   */
  function parkIfSpent(node: NodeRow, afterCommit: (cb: () => void) => void): void {
    if (node.state !== 'running') return;
    const { budgets, usage } = toNode(node);
    const over = exhaustedBudget(budgets, usage);
    if (over === null) return;
    const last = store.turns.get(node.id, store.turns.lastIndex(node.id));
    if (last?.tool_calls.some((c) => c.status === 'pending')) return;
    const waitingOn = { for: 'budget', budget: over.budget } as const;
    nodes.move(node, 'budget_exhausted', { reason: over.reason, waitingOn }, afterCommit);
  }

  /**
   * A fault in the node's record; fatal (or past the relaunch budget) fails the node, else it is
   * relaunched from its last recorded turn. `counted: false` for faults not of the node's making.
   */
  function fault(
    id: string,
    body: FaultBody,
    counted: boolean,
  ): { node: Node; directive: Directive } {
    return store.db.transaction((afterCommit) => {
      const node = row(id);
      if (node.state !== 'running' && node.state !== 'queued') {
        throw new ApiError(
          'invalid_state',
          `node is '${node.state}'; faults are recorded only while it is queued or running`,
        );
      }
      events.record('node.fault', id, { node_id: id, fault: { ...body, at: now() } });
      const count = counted && !body.fatal ? store.brokers.addFault(id) : 0;
      if (body.fatal || count > budget) {
        const message = body.fatal
          ? body.message
          : `${body.message} (${count} broker failures since the last recorded turn; the relaunch budget is ${budget})`;
        const error = { code: body.code, message };
        nodes.move(
          node,
          'fail',
          { reason: message, outcome: { result: null, summary: null, error } },
          afterCommit,
        );
      } else {
        nodes.move(node, 'relaunch', { reason: body.message }, afterCommit);
      }
      return { node: toNode(node), directive: directiveOf(node) };
    });
  }

  /** Ends a running job with its event; a job already ended answers as it is. */
  function settleJob(
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

  const hooks: SupervisorHooks = {
    launchOf(node) {
      const stored = node.model;
      const connection = models.connection(stored as ModelChoice);
      return {
        model: {
          provider: connection.provider,
          model: connection.model,
          ...(connection.apiKey !== undefined && { api_key: connection.apiKey }),
          ...(connection.baseUrl !== undefined && { base_url: connection.baseUrl }),
          ...(connection.script !== undefined && { script: connection.script }),
        },
        env: profiles.envValues(node.profile),
        sandbox: sandbox.forNode(node),
      };
    },
    unlaunchable(nodeId, error, code = 'model_not_ready') {
      const message = error instanceof Error ? error.message : String(error);
      fault(nodeId, { code, message, fatal: true }, true);
    },
    crashed(nodeId, message) {
      fault(nodeId, { code: 'broker_crashed', message, fatal: false }, true);
    },
    stopped(nodeId) {
      store.db.transaction(() => {
        const node = store.nodes.get(nodeId);
        const last = store.turns.get(nodeId, store.turns.lastIndex(nodeId));
        if (node === undefined || last === undefined) return;
        const output = `interrupted: ${node.state_reason ?? 'the node was stopped'}`;
        for (const call of last.tool_calls) {
          if (call.status !== 'pending') continue;
          const result = { status: 'error', output, job_id: null, finished_at: now() } as const;
          store.turns.settleToolCall(nodeId, call.id, result);
          const tool_call = { ...call, ...result };
          events.record('node.tool', nodeId, {
            node_id: nodeId,
            turn_index: last.index,
            tool_call,
          });
        }
      });
    },
    ended(nodeId) {
      store.db.transaction(() => {
        for (const jobId of store.jobs.running(nodeId)) {
          const end = { state: 'cancelled', exit_code: null, finished_at: now() } as const;
          const job = store.jobs.settle(nodeId, jobId, end);
          if (job !== undefined) events.record('node.job', nodeId, { node_id: nodeId, job });
        }
      });
    },
    lost(nodeId) {
      const message =
        'the daemon stopped while the node ran; relaunched from its last recorded turn';
      fault(nodeId, { code: 'broker_lost', message, fatal: false }, false);
    },
  };

  return {
    hooks,

    /**
     * `broker.claim`: queued → running; answers what the broker resumes from, with its mail
     * claimed. The claim's pid and version are the broker's own word; the supervisor recorded the
     * pid it spawned.
     */
    claim(id: string, tokenId: string) {
      return store.db.transaction((afterCommit) => {
        const queued = row(id);
        const settings = profiles.find(queued.profile);
        const { scopes } = queued;
        const installed = offeredPlugins(store.plugins.all());
        const tools = availableTools(scopes, settings?.tools ?? null, installed.groups);
        const plugins = installed.keep(tools);
        // What the model will see, named as it calls them: who watches can tell why a call was
        // or was not made.
        const offered = [
          ...tools.filter(isBuiltinTool),
          ...plugins.flatMap((p) => p.commands.flatMap((c) => pluginToolName(c) ?? [])),
        ];
        const node = nodes.move(queued, 'start', { tools: offered }, afterCommit);
        store.brokers.claimed(tokenId, now());
        // Woken by mail while its budget is spent, it parks again before any model call.
        parkIfSpent(node, afterCommit);
        const directive = directiveOf(node);
        return {
          node: toNode(node),
          system_prompt: settings?.system_prompt ?? null,
          tools,
          plugins,
          turns: store.turns.list(id),
          directive,
          // What its next turn reads (the mail that woke it), without a request of its own.
          ...(directive.action === 'continue' && {
            mail: store.mail.claim(id, MAIL_CLAIM_DEFAULT, now()),
          }),
        };
      });
    },

    /**
     * `broker.turns.record`: the next turn, before its calls run. A turn without calls that
     * reaches a budget parks the node; one with calls parks it once their results are in.
     */
    recordTurn(id: string, body: TurnBody): { turn: Turn; directive: Directive } {
      const fingerprint = createHash('sha256').update(JSON.stringify(body)).digest('hex');
      return store.db.transaction((afterCommit) => {
        const node = row(id);
        const recorded = store.turns.fingerprint(id, body.index);
        if (recorded !== undefined) {
          if (recorded !== fingerprint) {
            throw new ApiError(
              'conflict',
              `turn ${body.index} is already recorded with another body`,
              {
                field: 'index',
              },
            );
          }
          return { turn: store.turns.get(id, body.index)!, directive: directiveOf(node) };
        }
        if (node.state !== 'running') {
          throw new ApiError(
            'invalid_state',
            `node is '${node.state}'; turns are recorded only while it runs`,
          );
        }
        const next = store.turns.lastIndex(id) + 1;
        if (body.index !== next) {
          throw new ApiError('conflict', `the next turn of ${id} is ${next}, not ${body.index}`, {
            field: 'index',
            received: body.index,
          });
        }
        for (const call of body.tool_calls) {
          if (store.turns.toolCall(id, call.id) !== undefined) {
            throw new ApiError('conflict', `tool call ${call.id} is already recorded for ${id}`, {
              field: 'tool_calls',
            });
          }
        }
        const turn = store.turns.insert({
          node_id: id,
          index: body.index,
          model: body.model,
          input: body.input.map((m) => ({
            role: m.role,
            text: m.text,
            mail_seq: m.mail_seq ?? null,
          })),
          text: body.text,
          tool_calls: body.tool_calls.map((c) => ({
            id: c.id,
            name: c.name,
            input: c.input ?? null,
            error: c.error,
          })),
          usage: body.usage,
          cost_usd: body.cost_usd,
          finish_reason: body.finish_reason,
          started_at: body.started_at,
          finished_at: body.finished_at,
          fingerprint,
        });
        node.turns += 1;
        node.input_tokens += body.usage.input_tokens;
        node.output_tokens += body.usage.output_tokens;
        node.cost_usd += body.cost_usd ?? 0;
        node.updated_at = now();
        store.nodes.save(node);
        store.brokers.resetFaults(id);
        // Its mail is in a recorded turn now: acknowledged with it, not in a request of its own.
        const seqs = turn.input.flatMap((m) => (m.mail_seq === null ? [] : [m.mail_seq]));
        if (seqs.length > 0) store.mail.acknowledge(id, seqs, now());
        events.record('node.turn', id, { node_id: id, turn });
        parkIfSpent(node, afterCommit);
        return { turn, directive: directiveOf(node) };
      });
    },

    /**
     * `broker.toolResults.record`: settles a pending call once; a repeat answers the record. Any
     * state takes it: the `submit` call's own result comes after its node is `done`, and a
     * stopped broker settles what it cut short. The last result of a turn at a budget parks.
     * With it, in the one transaction: the end of the call's job (`job_end`) and, for a broker
     * that goes on, the claim of its next turn's mail (`claim_mail`): a turn's overhead is its
     * round trips, so what a record implies rides along.
     */
    recordToolResult(id: string, body: ToolResultBody) {
      if (body.job_end !== undefined && body.job_id === undefined) {
        throw new ApiError('invalid_request', '`job_end` settles the job named by `job_id`', {
          field: 'job_end',
        });
      }
      return store.db.transaction((afterCommit) => {
        const node = row(id);
        const call = store.turns.toolCall(id, body.tool_call_id);
        if (call === undefined || call.turn_index !== body.turn_index) {
          throw new ApiError(
            'not_found',
            `turn ${body.turn_index} of ${id} has no tool call ${body.tool_call_id}`,
            {
              field: 'tool_call_id',
            },
          );
        }
        if (body.job_id !== undefined && body.job_end !== undefined) {
          settleJob(id, body.job_id, body.job_end, 'job_id');
        }
        if (call.status === 'pending') {
          if (body.job_id !== undefined && store.jobs.get(id, body.job_id) === undefined) {
            throw new ApiError('not_found', `${id} has no job ${body.job_id}`, { field: 'job_id' });
          }
          store.turns.settleToolCall(id, body.tool_call_id, {
            status: body.status,
            output: body.output ?? null,
            job_id: body.job_id ?? null,
            finished_at: now(),
          });
        }
        const { turn_index: _, ...settled } = store.turns.toolCall(id, body.tool_call_id)!;
        if (call.status === 'pending') {
          events.record('node.tool', id, {
            node_id: id,
            turn_index: body.turn_index,
            tool_call: settled,
          });
          parkIfSpent(node, afterCommit);
        }
        const directive = directiveOf(node);
        if (body.claim_mail !== true || directive.action !== 'continue') {
          return { tool_call: settled, directive };
        }
        const mail = store.mail.claim(id, MAIL_CLAIM_DEFAULT, now());
        return { tool_call: settled, directive, mail };
      });
    },

    /** `broker.faults.record`; a refused key is said with its provider and the fix. */
    recordFault(id: string, body: FaultBody) {
      if (body.code !== 'auth_failed') return fault(id, body, true);
      const { provider } = row(id).model;
      return fault(id, { ...body, message: refusedCredentials(provider, body.message) }, true);
    },

    /**
     * `broker.result.submit`: the node's submit tool. The submit call's own result (and the
     * calls after it, not run) are recorded with the outcome and before it, as the broker would
     * record them once answered: the outcome is the node's last event.
     */
    submit(id: string, body: { result?: unknown; summary?: string | undefined }): Node {
      return store.db.transaction(() => {
        let submitted = false;
        settleOpenRecords(
          store,
          events,
          id,
          (call) => {
            if (!submitted && call.name === 'submit') {
              submitted = true;
              return { status: 'ok', output: SUBMITTED, job_id: null };
            }
            const why = submitted
              ? `not run: ${SUBMITTED_REASON}`
              : 'interrupted: the node submitted';
            return { status: 'error', output: why, job_id: null };
          },
          now(),
        );
        return nodes.submit(id, body);
      });
    },

    /** `broker.reports.create`. */
    report(id: string, body: ReportBody) {
      return store.db.transaction(() => {
        row(id);
        const report = store.reports.insert(id, body.text, body.data ?? null, now());
        events.record('node.report', id, { node_id: id, report });
        return report;
      });
    },

    /** `broker.jobs.record`: starts a job, or settles one (a repeat answers it as it is). */
    recordJob(id: string, body: JobBody): Job {
      return store.db.transaction(() => {
        const node = row(id);
        // Ending a job is a stopping broker's last record; starting one is work, which an ended
        // node does no more.
        if (body.state === 'running' && isFinal(node.state)) {
          throw new ApiError('invalid_state', `node ${id} is ${node.state}; it starts no job`);
        }
        if (body.state === 'running') {
          const started = { id: newId('job'), node_id: id, kind: body.kind, title: body.title };
          const job = store.jobs.insert({ ...started, started_at: now() });
          events.record('node.job', id, { node_id: id, job });
          return job;
        }
        return settleJob(id, body.id, body, 'id');
      });
    },

    /**
     * `broker.directive.get`: long-polls up to `waitS` while the answer would be a bare
     * `continue` (no job to cancel either).
     */
    async directive(id: string, waitS: number, signal: AbortSignal): Promise<Directive> {
      const news = () => {
        const d = directiveOf(row(id));
        return d.action === 'continue' && d.cancel_jobs.length === 0 ? null : d;
      };
      return (await waitUntil(events, news, waitS * 1000, signal)) ?? directiveOf(row(id));
    },
  };
}

export type BrokerPlane = ReturnType<typeof brokerPlane>;
