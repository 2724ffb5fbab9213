/**
 * Budgets park the node `waiting` with a reason a person can act on, never a crash: the daemon
 * parks it when a recorded turn reaches one (the loop obeys the `park` directive), and the loop
 * itself checks before every model call, so a relaunch cannot spend past a budget either.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runAgentLoop } from '../../src/broker/agent-loop.ts';
import { createLanguageModel } from '../../src/broker/providers/index.ts';
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
  it('max_turns: the turn that reaches it parks the node; raising it lets the node go on', async () => {
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
    // The parking turn's call waits for the budget to be raised.
    expect(parked.turns[1]!.tool_calls[0]!.status).toBe('pending');

    // Relaunched within the same budget: the pending call runs, the model is not called.
    expect(await runBroker(daemon, id)).toEqual({ exit: { kind: 'budget', reason }, calls: 0 });
    expect(parked.turns[1]!.tool_calls[0]).toMatchObject({
      status: 'ok',
      output: { stdout: 'step 2\n' },
    });

    // The daemon parks when a recorded turn reaches the limit, before that turn's calls run:
    // room for the submitting turn 3 means a limit above 3.
    parked.node.budgets.max_turns = 4;
    expect(await runBroker(daemon, id)).toMatchObject({ exit: { kind: 'submitted' }, calls: 1 });
    expect(parked.turns).toHaveLength(3);
    expect(daemon.count('recordToolResult')).toBe(3);
  });

  it('max_tokens: the loop checks before each model call, even when the daemon does not', async () => {
    const daemon = new MemoryDaemon({ checkBudgets: false });
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
    // The last turn's tool results were recorded before parking.
    expect(turns[1]!.tool_calls[0]!.status).toBe('ok');
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
