/**
 * The agent loop through the HTTP binding of `BrokerPort`: real HTTP on a real unix socket with
 * the node's bearer token, at the protocol's broker routes, served by the in-memory daemon.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAgentLoop } from '../../src/broker/agent-loop.ts';
import { createHttpBrokerPort } from '../../src/broker/http-port.ts';
import { ApiError } from '../../src/errors.ts';
import { MemoryDaemon } from './memory-daemon.ts';
import { serveMemoryDaemon } from './memory-daemon-server.ts';
import { observed } from './models.ts';

const dir = mkdtempSync(join(tmpdir(), 'svc-http-'));
const socketPath = join(dir, 'd.sock');
const daemon = new MemoryDaemon();
const tokens = new Map<string, string>();
let server: { close(): Promise<void> };

beforeAll(async () => {
  server = await serveMemoryDaemon(daemon, socketPath, tokens);
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A node with its own token, and a port bound to it. */
function nodeWithPort(task: string, scopes = ['svc:llm', 'svc:act']) {
  const id = daemon.createNode({ task, cwd: dir, scopes });
  const token = `svc_node_${id}`;
  tokens.set(token, id);
  const connect = () =>
    createHttpBrokerPort({
      socketPath,
      nodeId: id,
      token,
      cwd: dir,
      sandbox: daemon.get(id).sandbox,
    });
  return { id, connect };
}

const SCRIPT = [
  {
    tool_calls: [
      { name: 'bash', input: { command: 'echo over-http' } },
      { name: 'spawn', input: { task: 'child work' } },
      { name: 'spawn', input: { task: 'too wide', scopes: ['svc:llm', 'svc:schedule'] } },
    ],
  },
  { tool_calls: [{ name: 'wait', input: {} }] },
  { tool_calls: [{ name: 'submit', input: { result: 'ok', summary: 'done over http' } }] },
];

describe('runAgentLoop over the HTTP broker port', () => {
  it('records turns and results, parks on a wait, resumes, and submits', async () => {
    const { id, connect } = nodeWithPort('Work over HTTP');
    const first = connect();
    const waiting = await runAgentLoop({
      port: first,
      model: observed(SCRIPT).model,
      signal: new AbortController().signal,
    });
    await first.close();
    const [t1] = daemon.get(id).turns;
    const childId = (t1!.tool_calls[1]!.output as { node_id: string }).node_id;
    expect(waiting).toEqual({ kind: 'waiting', reason: `waiting for children: ${childId}` });
    expect(t1!.tool_calls.map((c) => c.status)).toEqual(['ok', 'ok', 'error']);
    expect(t1!.tool_calls[0]!.output).toMatchObject({ stdout: 'over-http\n' });
    // A refusal travels as an error envelope and reaches the model as a tool error.
    expect(t1!.tool_calls[2]!.output).toBe(
      "scope_missing: svc:schedule is outside the creator's scopes",
    );

    daemon.finish(childId, { answer: 42 });
    daemon.relaunch(id);
    const second = connect();
    const relaunched = observed(SCRIPT);
    const exit = await runAgentLoop({
      port: second,
      model: relaunched.model,
      signal: new AbortController().signal,
    });
    await second.close();
    expect(exit.kind).toBe('submitted');
    expect(relaunched.calls).toHaveLength(1);
    expect(daemon.get(id).turns[1]!.tool_calls[0]!.output).toEqual({
      children: [{ id: childId, outcome: expect.objectContaining({ result: { answer: 42 } }) }],
    });
    expect(daemon.get(id).node.outcome).toMatchObject({ result: 'ok', summary: 'done over http' });
  });

  it('maps error envelopes to ApiError, and a wrong token never leaks', async () => {
    const { id } = nodeWithPort('Refused');
    const port = createHttpBrokerPort({
      socketPath,
      nodeId: id,
      token: 'svc_node_wrong',
      cwd: dir,
    });
    const error = await port.load().catch((e: unknown) => e);
    await port.close();
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'unauthorized', status: 401 });
    expect(String((error as Error).message)).not.toContain('svc_node_wrong');

    expect(() => createHttpBrokerPort({ socketPath, nodeId: id, token: '', cwd: dir })).toThrow(
      new TypeError('createHttpBrokerPort: `token` must be a non-empty string'),
    );
  });

  it('park yields for mail with the reason', async () => {
    const { id, connect } = nodeWithPort('Park');
    const port = connect();
    await port.park('nothing to do');
    expect(daemon.get(id).node).toMatchObject({
      state: 'waiting',
      state_reason: 'nothing to do',
      waiting_on: { for: 'mail' },
    });
    await port.close();
  });
});
