/**
 * The agent loop driven by the scripted model against the in-memory daemon: real bash, children,
 * mail, waits, yields, reports, tool gating by scope, input checks, directives and faults.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type LoopEvent, runAgentLoop } from '../../src/broker/agent-loop.ts';
import type { TurnRecord } from '../../src/broker/port.ts';
import { toolsFor } from '../../src/broker/tools/index.ts';
import type { ScriptedTurn } from '../../src/model-access/providers/index.ts';
import { TOOLS_ALWAYS, TOOLS_OF_ACT } from '../tool-names.ts';
import { MemoryDaemon } from './memory-daemon.ts';
import { observed, offeredTools } from './models.ts';

const dir = mkdtempSync(join(tmpdir(), 'svc-loop-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const live = () => new AbortController().signal;
// biome-ignore lint/suspicious/noExplicitAny: tests read recorded JSON of every tool's shape
type Json = any;

/** Runs a fresh broker for `id` (relaunching the node first) with its own scripted model. */
async function runBroker(daemon: MemoryDaemon, id: string, script: ScriptedTurn[]) {
  daemon.relaunch(id);
  const m = observed(script);
  const exit = await runAgentLoop({
    port: daemon.connect(id).port,
    model: m.model,
    signal: live(),
  });
  return { exit, calls: m.calls };
}

describe('runAgentLoop with the scripted model', () => {
  it('runs bash for real, spawns a child, reads mail between turns, submits a result', async () => {
    const daemon = new MemoryDaemon();
    const id = daemon.createNode({ task: 'Make a file and report', cwd: dir });
    const { model, calls } = observed([
      {
        text: 'Working on it.',
        tool_calls: [
          { name: 'bash', input: { command: 'echo hello > a.txt && echo made' } },
          { name: 'spawn', input: { task: 'check a.txt' } },
          { name: 'report', input: { text: 'file made' } },
        ],
        usage: { input_tokens: 10, output_tokens: 5 },
      },
      { tool_calls: [{ name: 'bash', input: { command: 'cat a.txt; exit 3' } }] },
      { tool_calls: [{ name: 'submit', input: { result: { files: 1 }, summary: 'one file' } }] },
    ]);
    const { port } = daemon.connect(id, {
      after(op, args) {
        if (op === 'recordTurn' && (args[0] as TurnRecord).index === 1) daemon.deliver(id, 'hi');
      },
    });
    const events: LoopEvent[] = [];
    const exit = await runAgentLoop({
      port,
      model,
      signal: live(),
      onEvent: (e) => events.push(e),
    });

    expect(exit).toEqual({ kind: 'submitted', reason: 'the node submitted its result' });
    const { node, turns, reports, mail } = daemon.get(id);
    expect(node.state).toBe('done');
    expect(node.outcome).toMatchObject({ result: { files: 1 }, summary: 'one file' });
    expect(node.usage).toEqual({ turns: 3, input_tokens: 10, output_tokens: 5, cost_usd: 0 });
    const [t1, t2, t3] = turns as Json[];
    expect(turns.map((t) => t.index)).toEqual([1, 2, 3]);
    expect(t1.input).toEqual([{ role: 'user', text: 'Make a file and report', mail_seq: null }]);
    expect(t1).toMatchObject({ text: 'Working on it.', model: { provider: 'scripted' } });
    expect(t1.tool_calls[0]).toMatchObject({
      name: 'bash',
      status: 'ok',
      output: { exit_code: 0, signal: null, stdout: 'made\n', stderr: '' },
    });
    const child = daemon.get(t1.tool_calls[1].output.node_id);
    expect(child.node).toMatchObject({ parent_id: id, task: 'check a.txt', state: 'queued' });
    expect(reports).toEqual([{ text: 'file made' }]);

    // The mail that arrived after turn 1 is turn 2's input, acknowledged by turn 2's record;
    // it was claimed with turn 1's last result: neither takes a request of its own.
    expect(t2.input).toEqual([{ role: 'user', text: 'hi', mail_seq: 1 }]);
    expect(mail[0]!.state).toBe('acknowledged');
    const ops = daemon.calls.map((c) => c.op);
    expect(ops).not.toContain('ackMail');
    const lastOfTurn1 = daemon.calls.findLast(
      (c) => c.op === 'recordToolResult' && (c.args[0] as { turn_index: number }).turn_index === 1,
    );
    expect(lastOfTurn1?.args[0]).toMatchObject({ tool_call_id: 'scripted_0_2', claim_mail: true });
    const recordT2 = daemon.calls.findIndex(
      (c) => c.op === 'recordTurn' && (c.args[0] as TurnRecord).index === 2,
    );
    expect(ops.slice(daemon.calls.indexOf(lastOfTurn1!), recordT2)).not.toContain('claimMail');

    // A non-zero exit is a result, not a tool error.
    expect(t2.tool_calls[0]).toMatchObject({
      status: 'ok',
      output: { exit_code: 3, stdout: 'hello\n' },
    });
    expect(t3.tool_calls).toMatchObject([
      { id: 'scripted_2_0', name: 'submit', status: 'ok', output: { submitted: true } },
    ]);

    // Each tool result reached the model in the next turn.
    expect(calls).toHaveLength(3);
    expect(JSON.stringify(calls[2]!.prompt)).toContain('hello\\n');
    const kinds = events.map((e) => e.type);
    expect(kinds.slice(0, 2)).toEqual(['turn.started', 'text.delta']);
    expect(kinds.indexOf('turn.recorded')).toBeLessThan(kinds.indexOf('tool.started'));
    expect(kinds.filter((k) => k === 'tool.recorded')).toHaveLength(5);
  });

  it("starts each call's job with the record before it and makes a report with its result", async () => {
    const daemon = new MemoryDaemon();
    const id = daemon.createNode({ task: 'Build', cwd: dir });
    const { model } = observed([
      {
        tool_calls: [
          { name: 'bash', input: { command: 'echo a' } },
          { name: 'bash', input: { command: 'echo b', cwd: join(dir, 'no-such-dir') } },
          { name: 'bash', input: { command: 'echo c' } },
          { name: 'report', input: { text: 'built' } },
        ],
      },
      { tool_calls: [{ name: 'submit', input: { summary: 'done' } }] },
    ]);
    const { port } = daemon.connect(id);
    const exit = await runAgentLoop({ port, model, signal: live() });

    expect(exit.kind).toBe('submitted');
    const { turns, reports, startedJobs } = daemon.get(id);
    // No request of their own: the jobs came with the records, the report with its result.
    const args = (op: string) =>
      daemon.calls.filter((c) => c.op === op).map((c) => c.args[0] as Json);
    expect(daemon.calls.map((c) => c.op)).not.toContain('report');
    expect(reports).toEqual([{ text: 'built' }]);
    expect(startedJobs.map((j) => j.title)).toEqual(['echo a', 'echo b', 'echo c']);
    // Only the refused command's end, which `bash` records as it throws.
    expect(args('recordJob')).toEqual([
      { state: 'failed', id: startedJobs[1]!.id, exit_code: null },
    ]);
    expect(args('recordTurn')[0].next_job).toEqual({ kind: 'bash', title: 'echo a' });
    const [a, b, c, r] = args('recordToolResult');
    expect(a).toMatchObject({
      job_id: startedJobs[0]!.id,
      job_end: { state: 'done', exit_code: 0 },
      next_job: { kind: 'bash', title: 'echo b' },
    });
    // A call refused before its command started ends the job started for it.
    expect(turns[0]!.tool_calls[1]).toMatchObject({ status: 'error' });
    expect(b).toMatchObject({
      job_id: startedJobs[1]!.id,
      job_end: { state: 'failed', exit_code: null },
      next_job: { kind: 'bash', title: 'echo c' },
    });
    expect(c).toMatchObject({ job_id: startedJobs[2]!.id, job_end: { state: 'done' } });
    expect(c).not.toHaveProperty('next_job');
    expect(r).toMatchObject({ report: { text: 'built' }, claim_mail: true });
    expect(turns[0]!.tool_calls[3]).toMatchObject({ status: 'ok', output: { reported: true } });
  });

  it('settles a turn of reports with its record: one request, the model still reads the result', async () => {
    const daemon = new MemoryDaemon();
    const id = daemon.createNode({ task: 'Tell', cwd: dir });
    const { model, calls } = observed([
      {
        tool_calls: [
          { name: 'report', input: { text: 'one' } },
          { name: 'report', input: { text: 'two', data: { n: 2 } } },
        ],
      },
      // A bad input is no record: the call runs, to say so.
      { tool_calls: [{ name: 'report', input: { text: '' } }] },
      { tool_calls: [{ name: 'submit', input: { summary: 'told' } }] },
    ]);
    // After the claim: turn 1's record is what claims it for turn 2.
    const { port } = daemon.connect(id, {
      after(op) {
        if (op === 'load') daemon.deliver(id, 'hi');
      },
    });
    const events: LoopEvent[] = [];
    const exit = await runAgentLoop({
      port,
      model,
      signal: live(),
      onEvent: (e) => events.push(e),
    });

    expect(exit.kind).toBe('submitted');
    const { turns, reports } = daemon.get(id);
    expect(reports).toEqual([{ text: 'one' }, { text: 'two', data: { n: 2 } }]);
    const ops = daemon.calls.map((c) => c.op);
    // Turn 1: its record alone, which also claimed the mail turn 2 reads.
    expect(ops.slice(0, 3)).toEqual(['load', 'recordTurn', 'recordTurn']);
    expect(turns[1]!.input).toEqual([{ role: 'user', text: 'hi', mail_seq: 1 }]);
    expect(turns[0]!.tool_calls).toMatchObject([
      { status: 'ok', output: { reported: true } },
      { status: 'ok', output: { reported: true } },
    ]);
    expect(turns[1]!.tool_calls[0]).toMatchObject({ status: 'error' });
    expect(JSON.stringify(calls[1]!.prompt)).toContain('reported');
    const recorded = events.filter((e) => e.type === 'tool.recorded');
    expect(recorded.map((e) => (e as { index: number }).index)).toEqual([1, 1, 2, 3]);
  });

  it('parks on unfinished children; the relaunched broker reruns only the wait', async () => {
    const daemon = new MemoryDaemon();
    const id = daemon.createNode({ task: 'Delegate', cwd: dir });
    const script = [
      { tool_calls: [{ name: 'spawn', input: { task: 'sub-task' } }] },
      { tool_calls: [{ name: 'wait', input: {} }] },
      { tool_calls: [{ name: 'submit', input: { result: 'all good' } }] },
    ];
    const first = await runBroker(daemon, id, script);
    const childId = (daemon.get(id).turns[0]!.tool_calls[0]!.output as Json).node_id as string;
    expect(first.exit).toEqual({ kind: 'waiting', reason: `waiting for children: ${childId}` });
    expect(daemon.get(id).node).toMatchObject({
      state: 'waiting',
      waiting_on: { for: 'children', node_ids: [childId], mode: 'all' },
    });
    expect(daemon.get(id).turns[1]!.tool_calls[0]!.status).toBe('pending');

    daemon.finish(childId, 'child result');
    const second = await runBroker(daemon, id, script);
    expect(second.exit.kind).toBe('submitted');
    expect(daemon.get(id).turns[1]!.tool_calls[0]!.output).toEqual({
      children: [{ id: childId, outcome: expect.objectContaining({ result: 'child result' }) }],
    });
    // Replayed turns 1 and 2 were not asked of the model again, nor recorded twice.
    expect(second.calls).toHaveLength(1);
    expect(daemon.count('recordTurn')).toBe(3);
    expect(daemon.count('spawnChild')).toBe(1);
    expect(daemon.get(id).children).toEqual([childId]);
  });

  it('yield parks until mail; the relaunched broker hands the mail to the next turn', async () => {
    const daemon = new MemoryDaemon();
    const id = daemon.createNode({ task: 'Wait for instructions', cwd: dir });
    const script = [
      { tool_calls: [{ name: 'yield', input: { reason: 'need the file name' } }] },
      { tool_calls: [{ name: 'submit', input: { summary: 'thanks' } }] },
    ];
    const first = await runBroker(daemon, id, script);
    expect(first.exit).toEqual({ kind: 'yielded', reason: 'yielded: need the file name' });
    expect(daemon.get(id).node).toMatchObject({
      state: 'waiting',
      state_reason: 'yielded: need the file name',
      waiting_on: { for: 'mail' },
    });
    expect(daemon.get(id).turns[0]!.tool_calls[0]!.output).toEqual({ yielded: true });

    const sibling = daemon.createNode({ task: 'other', cwd: dir });
    daemon.deliver(id, 'use b.txt', sibling);
    const second = await runBroker(daemon, id, script);
    expect(second.exit.kind).toBe('submitted');
    expect(daemon.get(id).turns[1]!.input).toEqual([
      { role: 'user', text: `Message from node ${sibling}:\nuse b.txt`, mail_seq: 1 },
    ]);
    expect(second.calls).toHaveLength(1);
  });

  it('a turn without tool calls waits for a message, and is not replayed to the model', async () => {
    const daemon = new MemoryDaemon();
    const id = daemon.createNode({ task: 'Say hello', cwd: dir });
    const script = [
      { text: 'Hello! What should I do?' },
      { tool_calls: [{ name: 'submit', input: { result: 'did it' } }] },
    ];
    const reason = 'the model ended its turn without submitting a result; waiting for a message';
    const waiting = { kind: 'waiting', reason };
    expect(await runBroker(daemon, id, script)).toMatchObject({ exit: waiting, calls: [{}] });
    expect(daemon.get(id).node).toMatchObject({ state: 'waiting', state_reason: reason });
    // Relaunched with nothing new to answer: parks again without calling the model.
    expect(await runBroker(daemon, id, script)).toEqual({ exit: waiting, calls: [] });
    daemon.deliver(id, 'do it');
    const done = await runBroker(daemon, id, script);
    expect(done.exit.kind).toBe('submitted');
    expect(done.calls).toHaveLength(1);
    expect(daemon.count('recordTurn')).toBe(2);
  });

  it('records a fault when the model errors past its retries', async () => {
    const daemon = new MemoryDaemon();
    const id = daemon.createNode({ task: 'Run out of script', cwd: dir });
    const { exit } = await runBroker(daemon, id, [
      { tool_calls: [{ name: 'bash', input: { command: 'true' } }] },
    ]);
    const message = 'scripted model "test" has 1 turn(s) and was asked for turn 2';
    expect(exit).toEqual({ kind: 'failed', reason: `script_exhausted: ${message}` });
    expect(daemon.get(id).faults).toEqual([{ code: 'script_exhausted', message, fatal: true }]);
    expect(daemon.get(id).node.state).toBe('failed');
  });

  it('obeys a cancel directive answered by a record: no call of the turn runs', async () => {
    const daemon = new MemoryDaemon();
    const id = daemon.createNode({ task: 'Be cancelled', cwd: dir });
    const { port } = daemon.connect(id, {
      after(op) {
        // Before the first turn is recorded (its mail came with the session).
        if (op === 'load') {
          daemon.get(id).directive = {
            action: 'cancel',
            reason: 'cancelled by the owner',
            cancel_jobs: [],
          };
        }
      },
    });
    const exit = await runAgentLoop({
      port,
      model: observed([
        { tool_calls: [{ name: 'bash', input: { command: 'touch cancelled.txt' } }] },
      ]).model,
      signal: live(),
    });
    expect(exit).toEqual({ kind: 'aborted', reason: 'cancelled by the owner' });
    expect(existsSync(join(dir, 'cancelled.txt'))).toBe(false);
    expect(daemon.get(id).turns[0]!.tool_calls[0]).toMatchObject({
      status: 'error',
      output: 'interrupted: cancelled by the owner',
    });
  });
});

describe('tools and scopes', () => {
  it('toolsFor offers bash, the file tools, spawn, message and ask_human only under svc:act, and honours the session list', () => {
    const names = (scopes: string[] | null, allowed: string[] | null = null) =>
      toolsFor(scopes, allowed).map((t) => t.name);
    expect(names(['svc:llm'])).toEqual(TOOLS_ALWAYS);
    expect(names(['svc:llm', 'svc:act'])).toEqual([...TOOLS_OF_ACT, ...TOOLS_ALWAYS]);
    expect(names(null)).toHaveLength(14);
    expect(names(null, ['bash', 'submit', 'acme:tickets'])).toEqual(['bash', 'submit']);
  });

  it('does not offer a tool the scopes do not allow, and answers a call to it as a tool error', async () => {
    const daemon = new MemoryDaemon();
    const id = daemon.createNode({ task: 'Try bash', cwd: dir, scopes: ['svc:llm'] });
    const { exit, calls } = await runBroker(daemon, id, [
      { tool_calls: [{ name: 'bash', input: { command: 'touch forbidden.txt' } }] },
      { tool_calls: [{ name: 'submit', input: { result: 'could not' } }] },
    ]);
    expect(exit.kind).toBe('submitted');
    expect(offeredTools(calls[0]!)).toEqual(TOOLS_ALWAYS);
    expect(daemon.get(id).turns[0]!.tool_calls[0]).toMatchObject({
      name: 'bash',
      status: 'error',
      output: 'tool bash is not available to this node',
    });
    expect(existsSync(join(dir, 'forbidden.txt'))).toBe(false);
    // The model saw exactly one answer for the call: the recorded error.
    const answers = calls[1]!.prompt.flatMap((m) => (m.role === 'tool' ? m.content : []));
    expect(answers).toHaveLength(1);
    expect(JSON.stringify(answers)).toContain('not available to this node');
  });

  it('checks input before running a tool; bad input and refusals are results the model reads', async () => {
    const daemon = new MemoryDaemon();
    const id = daemon.createNode({ task: 'Misbehave', cwd: dir, scopes: ['svc:llm', 'svc:act'] });
    const { exit, calls } = await runBroker(daemon, id, [
      {
        tool_calls: [
          { name: 'bash', input: { command: 42 } },
          { name: 'message', input: { node_id: 'bob', text: 'hi' } },
          { name: 'spawn', input: { task: 'escalate', scopes: ['svc:llm', 'svc:schedule'] } },
          { name: 'bash', input: { command: 'pwd', cwd: '/no/such/dir' } },
          { name: 'submit', input: {} },
        ],
      },
      { tool_calls: [{ name: 'submit', input: { result: null } }] },
    ]);
    expect(exit.kind).toBe('submitted');
    const results = daemon.get(id).turns[0]!.tool_calls;
    expect(results.map((r) => r.status)).toEqual(['error', 'error', 'error', 'error', 'error']);
    expect(results[0]!.output).toMatch(/^invalid input for bash:\n.*expected string.*\n.*command/s);
    expect(results[1]!.output).toMatch(/^invalid input for message:[\s\S]*node_id/);
    expect(results[2]!.output).toBe("scope_missing: svc:schedule is outside the creator's scopes");
    expect(results[3]!.output).toMatch(
      /^invalid_request: cwd "\/no\/such\/dir" is not a directory this command's sandbox shows/,
    );
    expect(results[4]!.output).toMatch(/submit a result, a summary, or both/);
    expect(daemon.get(id).children).toEqual([]);
    expect(JSON.stringify(calls[1]!.prompt)).toContain('scope_missing');
  });
});
