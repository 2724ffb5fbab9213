/** Helpers for tests that run nodes on real brokers: create, poll, read events and turns. */
import { readdirSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { expect } from 'vitest';
import type { TestDaemon } from './helpers.ts';
import { json } from './helpers.ts';

export interface NodeDto {
  id: string;
  parent_id: string | null;
  state: string;
  state_reason: string | null;
  waiting_on: { for: string } | null;
  usage: { turns: number; input_tokens: number; output_tokens: number; cost_usd: number };
  outcome: {
    state: string;
    result: unknown;
    summary: string | null;
    error: { code: string; message: string } | null;
  } | null;
}

export interface EventDto {
  seq: number;
  kind: string;
  subject_id: string | null;
  payload: Record<string, unknown>;
}

type Call = TestDaemon['call'];

export async function ok<T>(res: Awaited<ReturnType<Call>>): Promise<T> {
  const text = await res.text();
  if (res.status !== 200) throw new Error(`answered ${res.status}: ${text}`);
  return JSON.parse(text) as T;
}

export function createNode(call: Call, body: Record<string, unknown>): Promise<NodeDto> {
  return call('/v1/nodes', json(body)).then((res) => ok<NodeDto>(res));
}

export function getNode(call: Call, id: string): Promise<NodeDto> {
  return call(`/v1/nodes/${id}`).then((res) => ok<NodeDto>(res));
}

/** Polls the node (every 25 ms, bounded by `timeoutMs`) until `until` holds. */
export async function waitForNode(
  call: Call,
  id: string,
  until: (node: NodeDto) => boolean,
  timeoutMs = 15_000,
): Promise<NodeDto> {
  const deadline = Date.now() + timeoutMs;
  let node = await getNode(call, id);
  while (!until(node)) {
    if (Date.now() > deadline) {
      throw new Error(
        `node ${id} is still ${node.state} (${node.state_reason}) after ${timeoutMs} ms`,
      );
    }
    await sleep(25);
    node = await getNode(call, id);
  }
  return node;
}

export const isFinal = (node: NodeDto) => ['done', 'failed', 'cancelled'].includes(node.state);

/** Every event of the node (up to 200), optionally of some kinds. */
export async function nodeEvents(call: Call, id: string, kinds?: string[]): Promise<EventDto[]> {
  const query = new URLSearchParams({ limit: '200' });
  if (kinds !== undefined) query.set('kinds', kinds.join(','));
  const page = await ok<{ data: EventDto[] }>(await call(`/v1/nodes/${id}/events?${query}`));
  return page.data;
}

/** The turn indexes recorded for the node, in event order: each exactly once when nothing doubled. */
export async function turnIndexes(call: Call, id: string): Promise<number[]> {
  const events = await nodeEvents(call, id, ['node.turn']);
  return events.map((e) => (e.payload.turn as { index: number }).index);
}

/** Tool results recorded for the node, waiting (bounded) until there are `count`. */
export async function toolResults(call: Call, id: string, count = 0) {
  const read = async () =>
    (await nodeEvents(call, id, ['node.tool'])).map(
      (e) => e.payload.tool_call as { id: string; name: string; status: string; output: unknown },
    );
  let results = await read();
  const deadline = Date.now() + 5_000;
  while (results.length < count && Date.now() < deadline) {
    await sleep(25);
    results = await read();
  }
  return results;
}

/** Node tokens the daemon still accepts. */
export async function liveNodeTokens(call: Call): Promise<number> {
  const page = await ok<{ data: { kind: string; revoked_at: string | null }[] }>(
    await call('/v1/tokens?limit=200'),
  );
  return page.data.filter((t) => t.kind === 'node' && t.revoked_at === null).length;
}

export function scripted(model: string, script: unknown[]) {
  return { provider: 'scripted', model, script };
}

/** A scripted turn calling one tool. */
export const toolCall = (name: string, input: unknown) => ({ tool_calls: [{ name, input }] });
export const bash = (command: string) => toolCall('bash', { command });
export const submit = (result: unknown, summary?: string) => ({
  tool_calls: [{ name: 'submit', input: { result, ...(summary !== undefined && { summary }) } }],
});

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Waits (bounded) until `check` holds. */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 5_000,
  what = 'condition',
) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} did not hold within ${timeoutMs} ms`);
    await sleep(20);
  }
}

export function expectOnceEach(indexes: number[], count: number) {
  expect(indexes).toEqual(Array.from({ length: count }, (_, i) => i + 1));
}

/**
 * The live agent hosts of the daemon on `home` (the `.ts` entry, or its bundle in the home's
 * cache; each runs in `<home>/worktrees`), each with its parent's pid.
 */
export function agentHosts(home: string): Map<number, number> {
  const worktrees = `${realpathSync(home)}/worktrees`;
  const hosts = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8');
      if (!cmdline.includes('broker/host.ts') && !cmdline.includes('/cache/broker-')) continue;
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (readlinkSync(`/proc/${name}/cwd`) !== worktrees || state === 'Z') continue;
      hosts.set(Number(name), Number(ppid));
    } catch {
      // gone, or another user's
    }
  }
  return hosts;
}

/**
 * The agent hosts of the daemon on `home` (`agentHosts`) and the nodes each holds by the
 * `brokers` record: one entry per node running, `pid` its host's (shared by the host's nodes).
 */
export function brokerProcesses(home: string): { pid: number; ppid: number; nodeId: string }[] {
  const hosts = agentHosts(home);
  if (hosts.size === 0) return [];
  const db = new DatabaseSync(join(home, 'svc.db'), { readOnly: true });
  try {
    const rows = db.prepare('SELECT node_id, pid FROM brokers WHERE ended_at IS NULL').all() as {
      node_id: string;
      pid: number | null;
    }[];
    return rows.flatMap((r) => {
      const ppid = r.pid === null ? undefined : hosts.get(r.pid);
      return ppid === undefined ? [] : [{ pid: r.pid!, ppid, nodeId: r.node_id }];
    });
  } finally {
    db.close();
  }
}

/** The process exists and is not a zombie (a killed child nobody reaped yet is gone for us). */
export function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}
