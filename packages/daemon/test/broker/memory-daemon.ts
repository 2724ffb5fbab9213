/**
 * A test double of the daemon's side of the broker control plane: a real `BrokerPort`
 * implementation over in-memory nodes, with the rules the protocol gives the daemon (turns
 * recorded in order from 1 and idempotently, tool results idempotent by call id, a budget park
 * once a budget is reached and nothing of the last turn is pending (at a turn or tool-result
 * record, or at load) answering `park`, idempotent spawn and message, the scope ceiling for
 * children, an atomic check-and-park for waits). Everything crosses it as JSON, as on the wire.
 * `connect(...).sever()` plays a broker whose process died: every later call of it rejects.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  availableTools,
  type Budgets,
  ceilingViolation,
  DEFAULT_BUDGETS,
  exhaustedBudget,
  isFinal,
  mergeBudgets,
  newId,
  type Scope,
} from '@svc/protocol';
import type {
  BrokerNode,
  BrokerPort,
  Directive,
  FaultReport,
  Job,
  JobStart,
  Mail,
  ReportInput,
  ResultSubmission,
  Turn,
} from '../../src/broker/port.ts';
import { ApiError } from '../../src/errors.ts';
import { SUBMITTED } from '../../src/ports.ts';
import { makePlan, type SandboxPlan } from '../../src/sandbox/plan.ts';
import { probeSandbox, type SandboxHost } from '../../src/sandbox/probe.ts';
import { loadSandboxSettings } from '../../src/sandbox/settings.ts';

export interface MemoryNode {
  node: BrokerNode;
  cwd: string;
  /** The daemon's home, as a launch names it (`BrokerLoad.home`). */
  home?: string | undefined;
  /** The node's sandbox plan, made as the daemon makes it (`BrokerLoad.sandbox`). */
  sandbox: SandboxPlan;
  turns: Turn[];
  mail: Mail[];
  faults: FaultReport[];
  reports: ReportInput[];
  /** The jobs records started for the call after them (`next_job`). */
  startedJobs: Job[];
  children: string[];
  /** What the next answer's directive says (`continue` unless a test sets it). */
  directive: Directive;
}

export interface PortCall {
  node: string;
  op: keyof BrokerPort;
  args: unknown[];
}

let host: SandboxHost | undefined;

/**
 * The plan a real daemon on `home` makes for a node with `scopes` whose worktree is `cwd`: the
 * host probed for real (bubblewrap), the person's default settings.
 */
function nodePlan(home: string | undefined, scopes: Scope[] | null, cwd: string): SandboxPlan {
  const svcHome = home ?? join(tmpdir(), 'svc-memory-daemon-no-home');
  host ??= probeSandbox(svcHome);
  const settings = loadSandboxSettings(svcHome);
  return makePlan({ settings, host, svcHome, scopes, worktree: cwd });
}

const wire = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
const now = () => new Date().toISOString();
const CONTINUE: Directive = { action: 'continue', reason: null, cancel_jobs: [] };

export class MemoryDaemon {
  readonly nodes = new Map<string, MemoryNode>();
  /** Every port call that reached the daemon, in order. */
  readonly calls: PortCall[] = [];
  private readonly keys = new Map<string, unknown>();

  createNode(fields: {
    task: string;
    cwd: string;
    home?: string;
    scopes?: Scope[] | null;
    budgets?: { [K in keyof BrokerNode['budgets']]?: number | null | undefined };
    parent_id?: string;
    title?: string;
    model?: BrokerNode['model'];
  }): string {
    const id = newId('node');
    const at = now();
    const parent = fields.parent_id === undefined ? undefined : this.get(fields.parent_id);
    const node: BrokerNode = {
      id,
      parent_id: fields.parent_id ?? null,
      root_id: parent?.node.root_id ?? id,
      run_id: null,
      app_id: null,
      profile: 'default',
      title: fields.title ?? fields.task.slice(0, 80),
      task: fields.task,
      state: 'running',
      state_reason: null,
      waiting_on: null,
      scopes: fields.scopes === undefined ? ['svc:llm', 'svc:act'] : fields.scopes,
      model: fields.model ?? { provider: 'scripted', model: 'test' },
      // JSON, as on the wire: an `undefined` budget is an absent one.
      budgets: mergeBudgets({ ...DEFAULT_BUDGETS }, wire(fields.budgets ?? {}) as Partial<Budgets>),
      usage: { turns: 0, input_tokens: 0, output_tokens: 0, cost_usd: 0 },
      outcome: null,
      output_schema: null,
      metadata: {},
      workspace: null,
      created_at: at,
      updated_at: at,
      started_at: null,
      finished_at: null,
    };
    this.nodes.set(id, {
      node,
      cwd: fields.cwd,
      home: fields.home,
      sandbox: nodePlan(fields.home, node.scopes, fields.cwd),
      turns: [],
      mail: [],
      faults: [],
      reports: [],
      startedJobs: [],
      children: [],
      directive: CONTINUE,
    });
    return id;
  }

  get(id: string): MemoryNode {
    const node = this.nodes.get(id);
    if (node === undefined) throw new ApiError('not_found', `no node ${id}`);
    return node;
  }

  /** Mail from the owner, or from a node. */
  deliver(to: string, text: string, fromNode: string | null = null): Mail {
    const box = this.get(to).mail;
    const mail: Mail = {
      seq: box.length + 1,
      node_id: to,
      from: fromNode === null ? { kind: 'owner', id: null } : { kind: 'node', id: fromNode },
      text,
      state: 'pending',
      created_at: now(),
      claimed_at: null,
      acknowledged_at: null,
    };
    box.push(mail);
    return mail;
  }

  /** Ends a child the way its own broker would. */
  finish(id: string, result: unknown): void {
    const { node } = this.get(id);
    node.state = 'done';
    node.outcome = { state: 'done', result, summary: null, error: null, finished_at: now() };
  }

  /** What a relaunch does first: the node runs again. */
  relaunch(id: string): void {
    Object.assign(this.get(id).node, { state: 'running', state_reason: null, waiting_on: null });
  }

  count(op: keyof BrokerPort, node?: string): number {
    return this.calls.filter((c) => c.op === op && (node === undefined || c.node === node)).length;
  }

  connect(
    nodeId: string,
    options: { after?: (op: keyof BrokerPort, args: unknown[]) => void } = {},
  ): { port: BrokerPort; sever(): void } {
    let severed = false;
    const impl = this.portImpl(nodeId);
    const port = {} as Record<keyof BrokerPort, (...args: unknown[]) => Promise<unknown>>;
    for (const op of Object.keys(impl) as (keyof BrokerPort)[]) {
      port[op] = async (...args: unknown[]) => {
        if (severed) throw new Error('connection to the daemon lost');
        this.calls.push({ node: nodeId, op, args: wire(args) });
        const answer = await (impl[op] as (...a: unknown[]) => Promise<unknown>)(...wire(args));
        options.after?.(op, args);
        return answer === undefined ? undefined : wire(answer);
      };
    }
    return {
      port: port as unknown as BrokerPort,
      sever: () => {
        severed = true;
      },
    };
  }

  private portImpl(nodeId: string): BrokerPort {
    const self = this.get(nodeId);
    const { node } = self;
    const running = () => {
      if (node.state !== 'running') {
        throw new ApiError('invalid_state', `node is '${node.state}', not 'running'`);
      }
    };
    const submitted = ({ result, summary }: ResultSubmission) => {
      node.state = 'done';
      node.outcome = {
        state: 'done',
        result: result ?? null,
        summary: summary ?? null,
        error: null,
        finished_at: now(),
      };
    };
    const once = <T>(key: string, make: () => T): T => {
      if (!this.keys.has(key)) this.keys.set(key, make());
      return this.keys.get(key) as T;
    };
    const park = (reason: string, waitingOn: BrokerNode['waiting_on']) => {
      Object.assign(node, { state: 'waiting', state_reason: reason, waiting_on: waitingOn });
    };
    /** The daemon's rule: park at a reached budget once nothing of the last turn is pending. */
    const directiveAfterRecord = (): Directive => {
      const pending = self.turns.at(-1)?.tool_calls.some((c) => c.status === 'pending');
      const over = exhaustedBudget(node.budgets, node.usage);
      if (node.state !== 'running' || pending || over === null) return self.directive;
      park(over.reason, { for: 'budget', budget: over.budget });
      return { action: 'park', reason: over.reason, cancel_jobs: [] };
    };
    const startJob = (start: JobStart): Job => {
      const job: Job = {
        id: newId('job'),
        node_id: nodeId,
        ...start,
        state: 'running',
        exit_code: null,
        started_at: now(),
        finished_at: null,
      };
      self.startedJobs.push(job);
      return job;
    };
    const claim = () =>
      self.mail
        .filter((m) => m.state !== 'acknowledged')
        .map((m) => Object.assign(m, { state: 'claimed', claimed_at: now() }));
    return {
      load: async () => {
        const directive = directiveAfterRecord();
        return {
          node,
          system_prompt: null,
          tools: availableTools(node.scopes, null),
          plugins: [],
          turns: self.turns,
          directive,
          // As the daemon does: the mail of its next turn comes with the session.
          ...(directive.action === 'continue' && { mail: claim() }),
          cwd: self.cwd,
          home: self.home,
          sandbox: self.sandbox,
        };
      },
      // It installs no plugins, so there is no directory-mode group to sign for.
      pluginToken: async (plugin) => {
        throw new ApiError('not_found', `no plugin '${plugin}'`);
      },
      recordTurn: async (body) => {
        const first = self.turns[body.index - 1];
        if (first !== undefined) return { turn: first, directive: self.directive };
        running();
        if (body.index !== self.turns.length + 1) {
          throw new ApiError(
            'conflict',
            `next turn is ${self.turns.length + 1}, not ${body.index}`,
          );
        }
        const turn: Turn = {
          node_id: nodeId,
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
            status: 'pending',
            output: null,
            job_id: null,
            finished_at: null,
          })),
          usage: body.usage,
          cost_usd: body.cost_usd,
          finish_reason: body.finish_reason,
          started_at: body.started_at,
          finished_at: body.finished_at,
        };
        self.turns.push(turn);
        // As the daemon does: the turn's mail is acknowledged with it.
        for (const m of self.mail) {
          if (turn.input.some((i) => i.mail_seq === m.seq)) {
            Object.assign(m, { state: 'acknowledged', acknowledged_at: now() });
          }
        }
        const { usage } = node;
        usage.turns += 1;
        usage.input_tokens += turn.usage.input_tokens;
        usage.output_tokens += turn.usage.output_tokens;
        usage.cost_usd += turn.cost_usd ?? 0;
        // As the daemon does: the calls it settles inline, with the reports and outcome they make.
        for (const result of body.results ?? []) {
          const call = turn.tool_calls.find((c) => c.id === result.tool_call_id);
          if (call?.status !== 'pending') {
            throw new ApiError('invalid_request', `no call ${result.tool_call_id} to settle`);
          }
          Object.assign(call, { status: result.status, output: result.output ?? null });
          call.finished_at = now();
          if (result.report !== undefined) self.reports.push(result.report);
          if (result.submit !== undefined) {
            Object.assign(call, { output: SUBMITTED });
            submitted(result.submit);
            break;
          }
        }
        const directive = directiveAfterRecord();
        if (directive.action !== 'continue') return { turn, directive };
        const settledAll = turn.tool_calls.every((c) => c.status !== 'pending');
        const job = body.next_job;
        return {
          turn,
          directive,
          ...(job !== undefined && { job: startJob(job) }),
          ...(body.claim_mail === true && settledAll && { mail: claim() }),
        };
      },
      recordToolResult: async (body) => {
        const call = self.turns[body.turn_index - 1]?.tool_calls.find(
          (c) => c.id === body.tool_call_id,
        );
        if (call === undefined) {
          throw new ApiError(
            'not_found',
            `turn ${body.turn_index} has no call ${body.tool_call_id}`,
          );
        }
        if (call.status === 'pending') {
          // The submit call's own result trails the outcome: the one record allowed when done.
          if (!(node.state === 'done' && call.name === 'submit')) running();
          Object.assign(call, {
            status: body.status,
            output: body.output ?? null,
            finished_at: now(),
          });
          // As the daemon does: the call's report is made with its result, once.
          if (body.report !== undefined) self.reports.push(body.report);
          const directive = directiveAfterRecord();
          const goesOn = directive.action === 'continue';
          return {
            tool_call: call,
            directive,
            ...(goesOn && body.claim_mail === true && { mail: claim() }),
            ...(goesOn && body.next_job !== undefined && { job: startJob(body.next_job) }),
          };
        }
        return { tool_call: call, directive: self.directive };
      },
      claimMail: async () => claim(),
      ackMail: async (seqs) => {
        for (const m of self.mail) {
          if (seqs.includes(m.seq))
            Object.assign(m, { state: 'acknowledged', acknowledged_at: now() });
        }
      },
      spawnChild: async (spec, key) =>
        once(key, () => {
          running();
          const scopes = spec.scopes ?? node.scopes;
          const outside = scopes === null ? null : ceilingViolation(node.scopes, scopes);
          if (outside !== null) {
            throw new ApiError('scope_missing', `${outside} is outside the creator's scopes`, {
              field: 'scopes',
              received: outside,
            });
          }
          const id = this.createNode({
            task: spec.task,
            cwd: self.cwd,
            parent_id: nodeId,
            scopes,
            ...(spec.budgets !== undefined && { budgets: spec.budgets }),
            ...(spec.title !== undefined && { title: spec.title }),
          });
          this.get(id).node.state = 'queued';
          self.children.push(id);
          return this.get(id).node;
        }),
      messageNode: async (to, text, key) => once(key, () => this.deliver(to, text, nodeId)),
      waitChildren: async (ids, mode) => {
        running();
        const wanted = ids === 'all' ? self.children : ids;
        const stranger = wanted.find((id) => !self.children.includes(id));
        if (stranger !== undefined) {
          throw new ApiError('invalid_request', `${stranger} is not a child of ${nodeId}`);
        }
        const ended = wanted.filter((id) => isFinal(this.get(id).node.state));
        const pending = wanted.filter((id) => !ended.includes(id));
        if (pending.length === 0 || (mode === 'any' && ended.length > 0)) {
          const children = ended.map((id) => ({ id, outcome: this.get(id).node.outcome! }));
          return { ready: true, children };
        }
        park(`waiting for children: ${pending.join(', ')}`, {
          for: 'children',
          node_ids: pending,
          mode,
        });
        return { ready: false, pending };
      },
      submitResult: async (submission) => {
        running();
        submitted(submission);
      },
      report: async (report) => {
        self.reports.push(report);
      },
      // Human requests are the real daemon's (test/human-node.test.ts); here only their shape.
      askHuman: async (ask, key) =>
        once(key, () => {
          running();
          const at = now();
          return {
            id: newId('human_request'),
            ticket_id: newId('ticket'),
            kind: ask.kind ?? 'question',
            title: ask.title,
            body: ask.body ?? '',
            options: ask.options ?? [],
            response_schema: ask.response_schema ?? null,
            state: 'open' as const,
            response: null,
            node_id: nodeId,
            app_id: null,
            expires_at: null,
            created_at: at,
            updated_at: at,
          };
        }),
      waitHuman: async (requestId) => {
        running();
        park(`waiting for the answer to human request ${requestId}`, {
          for: 'human',
          request_id: requestId,
        });
      },
      // Memory is the real daemon's (test/memory-node.test.ts): here every document is missing.
      memoryRead: async ({ path }) => {
        throw new ApiError('not_found', `no document ${JSON.stringify(path)}`);
      },
      memoryList: async () => ({ data: [], has_more: false, next_cursor: null }),
      memoryWrite: async () => {
        throw new ApiError('forbidden', 'this test daemon keeps no memory');
      },
      park: async (reason) => {
        running();
        park(reason, { for: 'mail' });
      },
      fault: async (report) => {
        self.faults.push(report);
        node.state = report.fatal ? 'failed' : 'queued';
        node.state_reason = report.message;
      },
      // Jobs are the real daemon's (test/jobs-node.test.ts): here each is made and ended alike.
      recordJob: async (job) => {
        const at = now();
        const id = 'id' in job ? job.id : newId('job');
        const ended = job.state !== 'running';
        return {
          id,
          node_id: nodeId,
          kind: 'kind' in job ? job.kind : 'bash',
          title: 'title' in job ? job.title : '',
          state: job.state,
          exit_code: ended ? (job.exit_code ?? null) : null,
          started_at: at,
          finished_at: ended ? at : null,
        };
      },
      // Held like the daemon's long poll, so a caller's loop does not spin.
      directive: (waitS, signal) =>
        new Promise((resolve) => {
          const timer = setTimeout(() => resolve(self.directive), waitS * 1000);
          signal.addEventListener('abort', () => {
            clearTimeout(timer);
            resolve(self.directive);
          });
        }),
    };
  }
}
