/**
 * Budgets park the node `waiting` with a reason a person can act on, never a crash. The daemon
 * parks it when the next turn would go past a budget: once a budget is reached and nothing of the
 * last turn is pending, so the turn that reaches a budget still runs its calls (`submit` too).
 * The loop obeys the `park` directive that record (or the claim) answers.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runAgentLoop } from '../../src/broker/agent-loop.ts';
import { createLanguageModel } from '../../src/model-access/providers/index.ts';
import { startFakeAnthropic } from './fixtures/fake-anthropic.ts';
import type { FakeProvider } from './fixtures/fake-provider.ts';
import { MemoryDaemon } from './memory-daemon.ts';
import { observed } from './models.ts';

const dir = mkdtempSync(join(tmpdir(), 'svc-budgets-'));
let fake: FakeProvider | undefined;
afterAll(async () => {
  await fake?.close();
  rmSync(dir, { recursive: true, force: true });
});

const live = () => new AbortController().signal;
const step = (n: number) => ({
  tool_calls: [{ name: 'bash', input: { command: `echo step ${n}` } }],
  usage: { input_tokens: 60, output_tokens: 40 },
});
const SCRIPT = [step(1), step(2), { tool_calls: [{ name: 'submit', input: { result: 3 } }] }];

async function runBroker(daemon: MemoryDaemon, id: string) {
  daemon.relaunch(id);
  const m = observed(SCRIPT);
  const exit = await runAgentLoop({
    port: daemon.connect(id).port,
    model: m.model,
    signal: live(),
  });
  return { exit, calls: m.calls.length };
}

describe('budgets', () => {
  it('max_turns: the turn that reaches it runs its calls, then the node parks; raising it lets the node go on', async () => {
    const daemon = new MemoryDaemon();
    const id = daemon.createNode({ task: 'Three steps', cwd: dir, budgets: { max_turns: 2 } });
    const reason =
      'budget reached: 2 of 2 turns used (max_turns); raise it with nodes.update to continue';

    expect(await runBroker(daemon, id)).toEqual({ exit: { kind: 'budget', reason }, calls: 2 });
    const parked = daemon.get(id);
    expect(parked.node).toMatchObject({
      state: 'waiting',
      state_reason: reason,
      waiting_on: { for: 'budget', budget: 'max_turns' },
    });
    expect(parked.faults).toEqual([]);
    // The turn that reached the budget ran its call before the node parked.
    expect(parked.turns[1]!.tool_calls[0]).toMatchObject({
      status: 'ok',
      output: { stdout: 'step 2\n' },
    });

    // Relaunched within the same budget (a message woke it): parked again at once, no model call.
    expect(await runBroker(daemon, id)).toEqual({ exit: { kind: 'budget', reason }, calls: 0 });
    expect(daemon.count('recordToolResult')).toBe(2);

    parked.node.budgets.max_turns = 3;
    expect(await runBroker(daemon, id)).toMatchObject({ exit: { kind: 'submitted' }, calls: 1 });
    expect(parked.turns).toHaveLength(3);
    // Turn 3's submit was settled with its turn, the outcome in the same record.
    expect(daemon.count('recordToolResult')).toBe(2);
    expect(parked.turns[2]!.tool_calls[0]).toMatchObject({ name: 'submit', status: 'ok' });
    expect(parked.node.state).toBe('done');
  });

  it('max_turns: N: the N-th turn submits (its tools run)', async () => {
    const daemon = new MemoryDaemon();
    const id = daemon.createNode({ task: 'Three steps', cwd: dir, budgets: { max_turns: 3 } });
    expect(await runBroker(daemon, id)).toMatchObject({ exit: { kind: 'submitted' }, calls: 3 });
    const { node, turns } = daemon.get(id);
    expect(node).toMatchObject({ state: 'done', outcome: { result: 3 } });
    expect(turns[2]!.tool_calls[0]).toMatchObject({ name: 'submit', status: 'ok' });
  });

  it('max_tokens: a turn past the limit runs its calls, then the node parks', async () => {
    const daemon = new MemoryDaemon();
    const id = daemon.createNode({ task: 'Three steps', cwd: dir, budgets: { max_tokens: 150 } });
    const reason =
      'budget reached: 200 of 150 tokens used (max_tokens); raise it with nodes.update to continue';
    expect(await runBroker(daemon, id)).toEqual({ exit: { kind: 'budget', reason }, calls: 2 });
    const { node, turns } = daemon.get(id);
    expect(node).toMatchObject({
      state: 'waiting',
      state_reason: reason,
      waiting_on: { for: 'budget', budget: 'max_tokens' },
    });
    expect(turns[1]!.tool_calls[0]!.status).toBe('ok');
  });

  it('a yield in the turn that reaches a budget parks at the budget, not for mail', async () => {
    const daemon = new MemoryDaemon();
    const id = daemon.createNode({ task: 'Yield', cwd: dir, budgets: { max_turns: 1 } });
    daemon.relaunch(id);
    const m = observed([{ tool_calls: [{ name: 'yield', input: { reason: 'done for now' } }] }]);
    const exit = await runAgentLoop({
      port: daemon.connect(id).port,
      model: m.model,
      signal: live(),
    });
    expect(exit.kind).toBe('budget');
    expect(daemon.get(id).node.waiting_on).toEqual({ for: 'budget', budget: 'max_turns' });
    expect(daemon.count('park')).toBe(0);
  });

  it('max_cost_usd: the price of the real model counts', async () => {
    fake = await startFakeAnthropic();
    const usage = { input_tokens: 1000, output_tokens: 500 };
    fake.enqueue(
      { tool_calls: [{ name: 'bash', input: { command: 'true' } }], usage },
      { tool_calls: [{ name: 'bash', input: { command: 'true' } }], usage },
    );
    const daemon = new MemoryDaemon();
    const id = daemon.createNode({ task: 'Spend', cwd: dir, budgets: { max_cost_usd: 0.02 } });
    const model = createLanguageModel({
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      apiKey: 'test-key',
      baseUrl: fake.baseUrl,
    });
    const exit = await runAgentLoop({ port: daemon.connect(id).port, model, signal: live() });
    // claude-sonnet-4-5: $3 / $15 per million tokens → $0.0105 a turn.
    expect(exit).toEqual({
      kind: 'budget',
      reason:
        'budget reached: 0.0210 of 0.02 USD used (max_cost_usd); raise it with nodes.update to continue',
    });
    expect(fake.requests).toHaveLength(2);
    expect(daemon.get(id).turns.map((t) => t.cost_usd)).toEqual([0.0105, 0.0105]);
  });
});
