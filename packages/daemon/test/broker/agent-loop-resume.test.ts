/**
 * Crashes and aborts: a broker killed mid-turn resumes from the recorded history without
 * recording a turn twice or re-running a recorded call; cancel and interrupt stop the model
 * request and kill bash's whole process group within a second.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAgentLoop } from '../../src/broker/agent-loop.ts';
import type { BrokerPort, TurnRecord } from '../../src/broker/port.ts';
import { createLanguageModel } from '../../src/model-access/providers/index.ts';
import { marked } from '../../src/supervisor/process-tree.ts';
import { startFakeAnthropic } from './fixtures/fake-anthropic.ts';
import type { FakeProvider } from './fixtures/fake-provider.ts';
import { MemoryDaemon } from './memory-daemon.ts';
import { observed } from './models.ts';

const dir = mkdtempSync(join(tmpdir(), 'svc-resume-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Polls `check` every 10 ms for at most `ms`; returns whether it became true. */
async function until(check: () => boolean, ms: number): Promise<boolean> {
  for (const end = performance.now() + ms; performance.now() < end; await sleep(10)) {
    if (check()) return true;
  }
  return check();
}

/** Alive and not a zombie (a killed process its parent has not reaped yet is gone for us). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/**
 * A broker process that dies right after the daemon acknowledged `op` the `nth` time: its
 * connection is gone and everything it was running stops.
 */
function crashingBroker(daemon: MemoryDaemon, id: string, op: keyof BrokerPort, nth = 1) {
  const process = new AbortController();
  let seen = 0;
  const connection = daemon.connect(id, {
    after(done) {
      if (done === op && ++seen === nth) {
        connection.sever();
        process.abort('broker process killed');
      }
    },
  });
  return { port: connection.port, signal: process.signal };
}

const TWO_APPENDS = [
  {
    tool_calls: [
      { name: 'bash', input: { command: 'echo one >> runs.log' } },
      { name: 'bash', input: { command: 'echo two >> runs.log' } },
    ],
  },
  { tool_calls: [{ name: 'submit', input: { result: 'appended' } }] },
];

describe('resume after a crash', () => {
  it('after one of two tool results: replays the turn and runs only the missing call once', async () => {
    const cwd = mkdtempSync(join(dir, 'a-'));
    const daemon = new MemoryDaemon();
    const id = daemon.createNode({ task: 'Append twice', cwd });
    const crashed = await runAgentLoop({
      ...crashingBroker(daemon, id, 'recordToolResult'),
      model: observed(TWO_APPENDS).model,
    });
    expect(crashed.kind).toBe('aborted');
    expect(readFileSync(join(cwd, 'runs.log'), 'utf8')).toBe('one\n');
    expect(daemon.get(id).turns).toHaveLength(1);
    expect(daemon.get(id).turns[0]!.tool_calls.map((c) => c.status)).toEqual(['ok', 'pending']);

    daemon.relaunch(id);
    const relaunched = observed(TWO_APPENDS);
    const exit = await runAgentLoop({
      port: daemon.connect(id).port,
      model: relaunched.model,
      signal: new AbortController().signal,
    });
    expect(exit.kind).toBe('submitted');
    expect(readFileSync(join(cwd, 'runs.log'), 'utf8')).toBe('one\ntwo\n');
    const turn1Records = daemon.calls.filter(
      (c) => c.op === 'recordTurn' && (c.args[0] as TurnRecord).index === 1,
    );
    expect(turn1Records).toHaveLength(1);
    const toolResults = daemon.calls.filter((c) => c.op === 'recordToolResult');
    // Turn 2's submit went with its turn: no record of its own.
    expect(toolResults.map((c) => (c.args[0] as { tool_call_id: string }).tool_call_id)).toEqual([
      'scripted_0_0',
      'scripted_0_1',
    ]);
    // The relaunched broker asked the model only for turn 2, with both results of turn 1.
    expect(relaunched.calls).toHaveLength(1);
    const sent = JSON.stringify(relaunched.calls[0]!.prompt);
    expect(sent).toContain('scripted_0_0');
    expect(sent).toContain('scripted_0_1');
  });

  it('right after the turn was recorded: runs its calls once; the mail it saw was acknowledged with it', async () => {
    const cwd = mkdtempSync(join(dir, 'b-'));
    const daemon = new MemoryDaemon();
    const id = daemon.createNode({ task: 'Append twice', cwd });
    const mail = daemon.deliver(id, 'please hurry');
    const crashed = await runAgentLoop({
      ...crashingBroker(daemon, id, 'recordTurn'),
      model: observed(TWO_APPENDS).model,
    });
    expect(crashed.kind).toBe('aborted');
    expect(existsSync(join(cwd, 'runs.log'))).toBe(false);
    expect(daemon.get(id).mail[0]!.state).toBe('acknowledged');

    daemon.relaunch(id);
    const exit = await runAgentLoop({
      port: daemon.connect(id).port,
      model: observed(TWO_APPENDS).model,
      signal: new AbortController().signal,
    });
    expect(exit.kind).toBe('submitted');
    expect(readFileSync(join(cwd, 'runs.log'), 'utf8')).toBe('one\ntwo\n');
    const [t1, t2] = daemon.get(id).turns;
    expect(t1!.input.map((m) => m.mail_seq)).toEqual([null, mail.seq]);
    // The mail turn 1 saw is not handed to the model a second time.
    expect(daemon.get(id).mail[0]!.state).toBe('acknowledged');
    expect(t2!.input).toEqual([]);
    expect(daemon.count('recordTurn')).toBe(2);
  });
});

describe('abort', () => {
  it('kills the process group of a running bash within a second and records the call as interrupted', async () => {
    const cwd = mkdtempSync(join(dir, 'c-'));
    const daemon = new MemoryDaemon();
    const id = daemon.createNode({ task: 'Sleep', cwd });
    const model = observed([
      {
        tool_calls: [
          {
            name: 'bash',
            input: { command: 'sleep 600 & echo $! > sleep.pid; echo $$ > sh.pid; wait' },
          },
          { name: 'bash', input: { command: 'touch never.txt' } },
        ],
      },
    ]).model;
    const stop = new AbortController();
    const running = runAgentLoop({ port: daemon.connect(id).port, model, signal: stop.signal });
    const pidFiles = ['sleep.pid', 'sh.pid'].map((f) => join(cwd, f));
    const readPids = () =>
      pidFiles.map((f) => Number.parseInt(readFileSync(f, 'utf8'), 10)).filter((n) => n > 0);
    expect(await until(() => pidFiles.every(existsSync) && readPids().length === 2, 10_000)).toBe(
      true,
    );
    // The pids the command wrote are its sandbox's own (a PID namespace of its own): the host's
    // are found by the mark every process of this broker's commands carries.
    expect(readPids()).toHaveLength(2);
    const pids = marked(id, process.pid).map((p) => p.pid);
    expect(pids.length).toBeGreaterThanOrEqual(2);
    expect(pids.every(alive)).toBe(true);

    const abortedAt = performance.now();
    stop.abort('interrupted by the person');
    const exit = await running;
    expect(performance.now() - abortedAt).toBeLessThan(1000);
    expect(exit).toEqual({ kind: 'aborted', reason: 'interrupted by the person' });
    expect(await until(() => !pids.some(alive), 1000 - (performance.now() - abortedAt))).toBe(true);

    const interrupted = { status: 'error', output: 'interrupted: interrupted by the person' };
    expect(daemon.get(id).turns[0]!.tool_calls).toMatchObject([
      { id: 'scripted_0_0', ...interrupted },
      { id: 'scripted_0_1', ...interrupted },
    ]);
    expect(existsSync(join(cwd, 'never.txt'))).toBe(false);
  });

  describe('during a model call', () => {
    let fake: FakeProvider;
    beforeAll(async () => {
      fake = await startFakeAnthropic();
    });
    afterAll(() => fake.close());

    it('aborts the HTTP request itself and records nothing', async () => {
      const daemon = new MemoryDaemon();
      const id = daemon.createNode({ task: 'Think long', cwd: dir });
      fake.enqueue({ text: 'Let me think about this for a very long time', hang: true });
      const model = createLanguageModel({
        provider: 'anthropic',
        model: 'claude-haiku-4-5',
        apiKey: 'test-key',
        baseUrl: fake.baseUrl,
      });
      const stop = new AbortController();
      const running = runAgentLoop({
        port: daemon.connect(id).port,
        model,
        signal: stop.signal,
        onEvent: (e) => {
          if (e.type === 'text.delta') stop.abort('cancelled');
        },
      });
      const exit = await running;
      expect(exit).toEqual({ kind: 'aborted', reason: 'cancelled' });
      expect(await fake.requests[0]!.closed).toEqual({ completed: false });
      expect(daemon.get(id).turns).toEqual([]);
      expect(daemon.get(id).faults).toEqual([]);
    });
  });
});
