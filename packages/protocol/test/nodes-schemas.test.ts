import { describe, expect, it } from 'vitest';
import {
  brokerSessionSchema,
  credentialInstallBodySchema,
  faultBodySchema,
  jobRecordBodySchema,
  llmBodySchema,
  modelChoiceSchema,
  modelConfigBodySchema,
  modelCredentialSchema,
  modelReadinessResponseSchema,
  NODE_EVENT_KINDS,
  newId,
  nodeCreateBodySchema,
  nodeEventPayloadSchema,
  nodeEventSchema,
  nodeEventsQuerySchema,
  nodeListQuerySchema,
  nodeParseBodySchema,
  nodeReviveAllBodySchema,
  nodeSchema,
  nodeUpdateBodySchema,
  nodeWaitBodySchema,
  nodeWaitQuerySchema,
  profileEnsureBodySchema,
  profileSchema,
  RUN_EVENT_KINDS,
  readinessResponseSchema,
  resultSubmitBodySchema,
  runStartBodySchema,
  turnRecordBodySchema,
} from '../src/index.ts';

const ok = (schema: { safeParse(v: unknown): { success: boolean } }, value: unknown) =>
  schema.safeParse(value).success;

const NOW = '2026-01-02T03:04:05.678Z';

function sampleNode(overrides: Record<string, unknown> = {}) {
  const id = newId('node');
  return {
    id,
    parent_id: null,
    root_id: id,
    run_id: null,
    app_id: null,
    profile: 'default',
    title: 'Summarize the logs',
    task: 'Summarize the logs',
    state: 'queued',
    state_reason: null,
    waiting_on: null,
    scopes: ['svc:llm'],
    model: { provider: 'scripted', model: 'demo' },
    budgets: { max_turns: 100, max_tokens: null, max_cost_usd: null },
    usage: { turns: 0, input_tokens: 0, output_tokens: 0, cost_usd: 0 },
    outcome: null,
    output_schema: null,
    metadata: {},
    workspace: null,
    created_at: NOW,
    updated_at: NOW,
    started_at: null,
    finished_at: null,
    ...overrides,
  };
}

describe('node create body', () => {
  it('needs a task; everything else is optional; unknown fields are refused', () => {
    expect(ok(nodeCreateBodySchema, { task: 'do it' })).toBe(true);
    expect(ok(nodeCreateBodySchema, {})).toBe(false);
    expect(ok(nodeCreateBodySchema, { task: '' })).toBe(false);
    expect(ok(nodeCreateBodySchema, { task: 'x', scope: ['svc:llm'] })).toBe(false);
    expect(
      ok(nodeCreateBodySchema, {
        task: 'x',
        title: 'T',
        profile: 'research',
        parent_id: newId('node'),
        scopes: ['svc:llm', 'svc:act'],
        model: { provider: 'anthropic', model: 'claude-sonnet-4-5' },
        budgets: { max_turns: 5, max_cost_usd: 0.5, max_tokens: null },
        output_schema: { type: 'object' },
        metadata: { ticket: 'A-1' },
      }),
    ).toBe(true);
  });

  it('checks ids, profile names, budgets and label counts', () => {
    expect(ok(nodeCreateBodySchema, { task: 'x', parent_id: newId('run') })).toBe(false);
    expect(ok(nodeCreateBodySchema, { task: 'x', profile: 'Research' })).toBe(false);
    expect(ok(nodeCreateBodySchema, { task: 'x', budgets: { max_turns: 0 } })).toBe(false);
    expect(ok(nodeCreateBodySchema, { task: 'x', budgets: { max_turns: 1.5 } })).toBe(false);
    expect(ok(nodeCreateBodySchema, { task: 'x', budgets: { max_cost_usd: -1 } })).toBe(false);
    expect(ok(nodeCreateBodySchema, { task: 'x', budgets: { turns: 3 } })).toBe(false);
    const labels = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v']));
    expect(ok(nodeCreateBodySchema, { task: 'x', metadata: labels })).toBe(false);
  });

  it('takes a git workspace: an absolute repo, a base that is never an option nor a range', () => {
    const body = (workspace: unknown) => ({ task: 'x', workspace });
    expect(ok(nodeCreateBodySchema, body({ repo: '/src/app' }))).toBe(true);
    for (const base of ['main', 'release/1.2', 'v1.0.0', 'a1b2c3d']) {
      expect(ok(nodeCreateBodySchema, body({ repo: '/src/app', base }))).toBe(true);
    }
    for (const base of ['-x', '--upload-pack=evil', 'main..dev', 'HEAD~1', 'a b', '']) {
      expect(ok(nodeCreateBodySchema, body({ repo: '/src/app', base }))).toBe(false);
    }
    expect(ok(nodeCreateBodySchema, body({ repo: 'src/app' }))).toBe(false);
    expect(ok(nodeCreateBodySchema, body({ repo: '/src/app', branch: 'x' }))).toBe(false);
    expect(ok(nodeCreateBodySchema, body(null))).toBe(false);
    expect(ok(profileEnsureBodySchema, { workspace: null })).toBe(true);
    expect(ok(profileEnsureBodySchema, { workspace: { repo: '/src/app' } })).toBe(true);
  });

  it("accepts a script only with provider 'scripted', and every turn says something", () => {
    const script = [{ text: 'hi' }, { tool_calls: [{ name: 'submit', input: { summary: 'ok' } }] }];
    expect(ok(modelChoiceSchema, { provider: 'scripted', model: 'demo', script })).toBe(true);
    expect(ok(modelChoiceSchema, { provider: 'openai', model: 'gpt-5', script })).toBe(false);
    expect(ok(modelChoiceSchema, { provider: 'scripted', model: 'demo', script: [{}] })).toBe(
      false,
    );
    expect(
      ok(modelChoiceSchema, { provider: 'scripted', model: 'demo', script: [{ text: '' }] }),
    ).toBe(false);
    expect(ok(modelChoiceSchema, { provider: 'gemini', model: 'x' })).toBe(false);
  });

  it("takes a scripted turn's delay_ms as whole ms up to a second", () => {
    const choice = (delay_ms: unknown) => ({
      provider: 'scripted',
      model: 'demo',
      script: [{ text: 'hi', delay_ms }],
    });
    for (const good of [0, 100, 1_000]) expect(ok(modelChoiceSchema, choice(good))).toBe(true);
    for (const bad of [-1, 1.5, 1_001, '100']) {
      expect(ok(modelChoiceSchema, choice(bad))).toBe(false);
    }
  });

  it('run start is a root create: no parent_id; parse needs an output_schema', () => {
    expect(ok(runStartBodySchema, { task: 'x' })).toBe(true);
    expect(ok(runStartBodySchema, { task: 'x', parent_id: newId('node') })).toBe(false);
    expect(ok(nodeParseBodySchema, { task: 'x' })).toBe(false);
    expect(ok(nodeParseBodySchema, { task: 'x', output_schema: {}, timeout_s: 30 })).toBe(true);
    expect(ok(nodeParseBodySchema, { task: 'x', output_schema: {}, timeout_s: 301 })).toBe(false);
  });
});

describe('node queries and other bodies', () => {
  it('list filters: comma-separated states, a parent id or none, a root id', () => {
    const root = newId('node');
    expect(
      nodeListQuerySchema.parse({ state: 'queued,waiting', root_id: root, limit: '5' }),
    ).toEqual({ state: ['queued', 'waiting'], root_id: root, limit: 5 });
    expect(nodeListQuerySchema.parse({ parent_id: 'none' })).toEqual({ parent_id: 'none' });
    expect(ok(nodeListQuerySchema, { state: 'queued,parked' })).toBe(false);
    expect(ok(nodeListQuerySchema, { state: 'queued,' })).toBe(false);
    expect(ok(nodeListQuerySchema, { parent_id: 'root' })).toBe(false);
  });

  it('event pages take after, limit, kinds and subtree; waits a bounded timeout', () => {
    expect(
      nodeEventsQuerySchema.parse({ after: '10', subtree: 'true', kinds: 'node.turn' }),
    ).toEqual({
      after: 10,
      subtree: true,
      kinds: 'node.turn',
    });
    expect(ok(nodeEventsQuerySchema, { subtree: 'yes' })).toBe(false);
    expect(nodeWaitQuerySchema.parse({ timeout_s: '0' })).toEqual({ timeout_s: 0 });
    expect(ok(nodeWaitQuerySchema, { timeout_s: '301' })).toBe(false);
  });

  it('update needs something to change; submit needs a result or a summary', () => {
    expect(ok(nodeUpdateBodySchema, {})).toBe(false);
    expect(ok(nodeUpdateBodySchema, { budgets: { max_turns: null } })).toBe(true);
    expect(ok(nodeUpdateBodySchema, { state: 'done' })).toBe(false);
    expect(ok(resultSubmitBodySchema, {})).toBe(false);
    expect(ok(resultSubmitBodySchema, { result: null })).toBe(true);
    expect(ok(resultSubmitBodySchema, { summary: 'done' })).toBe(true);
  });

  it('a wait names what it waits for', () => {
    expect(ok(nodeWaitBodySchema, { for: 'children' })).toBe(true);
    expect(ok(nodeWaitBodySchema, { for: 'children', node_ids: [], mode: 'any' })).toBe(false);
    expect(ok(nodeWaitBodySchema, { for: 'human', request_id: newId('human_request') })).toBe(true);
    expect(ok(nodeWaitBodySchema, { for: 'timer', seconds: 0 })).toBe(false);
    expect(ok(nodeWaitBodySchema, { for: 'mail' })).toBe(false); // that is yield
    expect(ok(nodeWaitBodySchema, { for: 'timer', seconds: 5, extra: 1 })).toBe(false);
  });
});

describe('node DTO and events', () => {
  it('parses a node as the daemon answers it', () => {
    expect(ok(nodeSchema, sampleNode())).toBe(true);
    expect(ok(nodeSchema, sampleNode({ state: 'parked' }))).toBe(false);
    const waiting = sampleNode({
      state: 'waiting',
      state_reason: 'budget reached: 5 of 5 turns used (max_turns)',
      waiting_on: { for: 'budget', budget: 'max_turns' },
    });
    expect(ok(nodeSchema, waiting)).toBe(true);
  });

  it('types the known event kinds and still accepts unknown ones', () => {
    expect(NODE_EVENT_KINDS).toEqual(
      expect.arrayContaining([
        'node.state',
        'node.turn',
        'node.tool',
        'node.mail',
        'node.report',
        'node.outcome',
      ]),
    );
    expect(RUN_EVENT_KINDS.every((k) => k.startsWith('run.'))).toBe(true);
    const id = newId('node');
    const event = (kind: string, payload: unknown) => ({
      seq: 7,
      kind,
      subject_id: id,
      payload,
      created_at: NOW,
    });
    const state = { node_id: id, from: 'queued', to: 'running', action: 'start', reason: null };
    expect(nodeEventSchema.parse(event('node.state', state))).toEqual(event('node.state', state));
    expect(nodeEventPayloadSchema('node.state')?.safeParse({ ...state, to: 'nope' }).success).toBe(
      false,
    );
    expect(nodeEventPayloadSchema('node.future')).toBeUndefined();
    expect(ok(nodeEventSchema, event('node.future', { anything: 1 }))).toBe(true);
    expect(ok(nodeEventSchema, { ...event('node.state', state), seq: 0 })).toBe(false);
  });
});

describe('profiles, models and the model call', () => {
  it('ensure takes known tool names and nullable fields; never an env value', () => {
    expect(ok(profileEnsureBodySchema, {})).toBe(true);
    expect(
      ok(profileEnsureBodySchema, {
        model: { provider: 'openai', model: 'gpt-5' },
        system_prompt: 'Be brief.',
        tools: ['bash', 'read_file', 'spawn', 'github:issues'],
        scopes: ['svc:llm'],
        budgets: { max_turns: 20 },
      }),
    ).toBe(true);
    expect(ok(profileEnsureBodySchema, { model: null, tools: null, scopes: null })).toBe(true);
    expect(ok(profileEnsureBodySchema, { tools: ['Bash'] })).toBe(false);
    expect(ok(profileEnsureBodySchema, { env: { TOKEN: 'x' } })).toBe(false);
    const answer = profileSchema.parse({
      name: 'default',
      description: null,
      model: null,
      scripted_turns: null,
      system_prompt: null,
      tools: null,
      scopes: null,
      budgets: { max_turns: 100, max_tokens: null, max_cost_usd: null },
      workspace: null,
      network: null,
      command_env: [],
      env: [{ name: 'GITHUB_TOKEN', updated_at: NOW, value: 'leak' }],
      app_id: null,
      created_at: NOW,
      updated_at: NOW,
    });
    expect(answer.env).toEqual([{ name: 'GITHUB_TOKEN', updated_at: NOW }]);
  });

  it('credential install: a key and an optional http(s) base_url; the DTO drops any key', () => {
    expect(ok(credentialInstallBodySchema, { api_key: 'sk-123' })).toBe(true);
    expect(ok(credentialInstallBodySchema, { base_url: 'http://127.0.0.1:11434/v1' })).toBe(true);
    expect(ok(credentialInstallBodySchema, { api_key: 'sk 123' })).toBe(false);
    expect(ok(credentialInstallBodySchema, { base_url: 'file:///etc/passwd' })).toBe(false);
    // A bare ?, # or @ parses to an empty query, fragment or user: refused as the full ones are.
    for (const base_url of [
      'http://127.0.0.1/v1?',
      'http://127.0.0.1/v1#',
      'http://@127.0.0.1/v1',
      'http://u:p@127.0.0.1/v1',
      'http://127.0.0.1/v1?a=1',
    ]) {
      expect(ok(credentialInstallBodySchema, { base_url }), base_url).toBe(false);
    }
    expect(ok(credentialInstallBodySchema, { base_url: 'https://gw.test/openai/v1/' })).toBe(true);
    expect(ok(credentialInstallBodySchema, { key: 'sk-123' })).toBe(false);
    const dto = modelCredentialSchema.parse({
      provider: 'openai',
      has_key: true,
      base_url: null,
      api_key: 'sk-secret',
      created_at: NOW,
      updated_at: NOW,
    });
    expect(JSON.stringify(dto)).not.toContain('sk-secret');
  });

  it('model config: a default (or null) and per-profile overrides', () => {
    expect(ok(modelConfigBodySchema, { default: { provider: 'openai', model: 'gpt-5' } })).toBe(
      true,
    );
    expect(
      ok(modelConfigBodySchema, {
        default: null,
        profiles: { fast: { provider: 'openai-compatible', model: 'llama3.2' } },
      }),
    ).toBe(true);
    expect(ok(modelConfigBodySchema, {})).toBe(false);
    expect(
      ok(modelConfigBodySchema, {
        default: null,
        profiles: { Fast: { provider: 'openai', model: 'x' } },
      }),
    ).toBe(false);
  });

  it('readiness in full still satisfies the existing readiness schema', () => {
    const full = {
      providers: [
        {
          provider: 'scripted',
          ready: true,
          label: 'Scripted replay (offline, deterministic; not a real model)',
          has_credentials: false,
          offline: true,
          checked_at: null,
        },
        {
          provider: 'openai',
          ready: false,
          reason: 'no API key installed',
          label: 'OpenAI',
          has_credentials: false,
          offline: false,
          checked_at: null,
        },
      ],
      default: null,
      default_ready: false,
    };
    expect(ok(modelReadinessResponseSchema, full)).toBe(true);
    expect(ok(readinessResponseSchema, full)).toBe(true);
  });

  it('llm body: at least one message; roles user and assistant', () => {
    expect(ok(llmBodySchema, { messages: [{ role: 'user', content: 'hi' }] })).toBe(true);
    expect(ok(llmBodySchema, { messages: [] })).toBe(false);
    expect(ok(llmBodySchema, { messages: [{ role: 'system', content: 'x' }] })).toBe(false);
    expect(ok(llmBodySchema, { messages: [{ role: 'user', content: 'x' }], temperature: 3 })).toBe(
      false,
    );
  });
});

describe('broker control plane bodies', () => {
  it('a turn record is complete and strict', () => {
    const turn = {
      index: 1,
      model: { provider: 'scripted', model: 'demo' },
      input: [{ role: 'user', text: 'the task' }],
      text: 'Working on it',
      tool_calls: [{ id: 'scripted_0_0', name: 'bash', input: { command: 'ls', cwd: '/' } }],
      usage: { input_tokens: 10, output_tokens: 3 },
      cost_usd: null,
      finish_reason: 'tool-calls',
      started_at: NOW,
      finished_at: NOW,
    };
    expect(ok(turnRecordBodySchema, turn)).toBe(true);
    expect(ok(turnRecordBodySchema, { ...turn, index: 0 })).toBe(false);
    expect(
      ok(turnRecordBodySchema, { ...turn, usage: { input_tokens: -1, output_tokens: 0 } }),
    ).toBe(false);
    expect(ok(turnRecordBodySchema, { ...turn, api_key: 'x' })).toBe(false);
  });

  it('faults carry a snake_case code; jobs start without an id and settle with one', () => {
    expect(ok(faultBodySchema, { code: 'provider_error', message: '503', fatal: false })).toBe(
      true,
    );
    expect(ok(faultBodySchema, { code: 'Provider Error', message: 'x', fatal: true })).toBe(false);
    expect(ok(jobRecordBodySchema, { state: 'running', kind: 'bash', title: 'npm test' })).toBe(
      true,
    );
    expect(ok(jobRecordBodySchema, { state: 'done', id: newId('job'), exit_code: 0 })).toBe(true);
    expect(ok(jobRecordBodySchema, { state: 'done', kind: 'bash', title: 'x' })).toBe(false);
  });

  it('a broker session answers the node, its tools and its history', () => {
    expect(
      ok(brokerSessionSchema, {
        node: sampleNode({ state: 'running' }),
        system_prompt: null,
        tools: ['wait', 'yield', 'report', 'submit', 'acme:tickets'],
        plugins: [
          {
            name: 'acme',
            origin: 'http://127.0.0.1:8787',
            auth: 'token',
            auth_env: 'ACME_TOKEN',
            commands: [
              {
                group: 'tickets',
                name: 'create',
                description: 'Open a ticket',
                scope: 'acme:tickets',
                streaming: false,
                method: 'POST',
                path: '/plugins/acme/tickets/create',
                input: { type: 'object' },
              },
            ],
          },
        ],
        turns: [],
        directive: { action: 'continue', reason: null, cancel_jobs: [] },
      }),
    ).toBe(true);
  });

  it('a broker session always says which plugins, a directory-mode one included', () => {
    const session = {
      node: sampleNode({ state: 'running' }),
      system_prompt: null,
      tools: [],
      turns: [],
      directive: { action: 'continue', reason: null, cancel_jobs: [] },
    };
    expect(ok(brokerSessionSchema, session)).toBe(false);
    const directory = {
      name: 'acme',
      origin: 'http://x',
      auth: 'directory',
      auth_env: null,
      commands: [],
    };
    expect(ok(brokerSessionSchema, { ...session, plugins: [directory] })).toBe(true);
    expect(ok(brokerSessionSchema, { ...session, plugins: [{ ...directory, auth: 'x' }] })).toBe(
      false,
    );
  });
});

describe('nodes.reviveAll body', () => {
  it('takes failed and cancelled, each at most once', () => {
    for (const states of [
      ['failed'],
      ['cancelled'],
      ['failed', 'cancelled'],
      ['cancelled', 'failed'],
    ]) {
      expect(ok(nodeReviveAllBodySchema, { states }), String(states)).toBe(true);
    }
    for (const states of [[], ['failed', 'failed'], ['done']]) {
      expect(ok(nodeReviveAllBodySchema, { states }), String(states)).toBe(false);
    }
  });
});
