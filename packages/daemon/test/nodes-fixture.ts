/**
 * A daemon for node and run tests, plus a second connection to its database standing in for a
 * broker: it mints node tokens and applies the transitions only a broker makes (`start`,
 * `budget_exhausted`, `fail`), through the same services the daemon runs.
 *
 * So that no real broker changes a node behind a test's back, the daemon runs one broker slot
 * with an idle stand-in broker, held by a node made first that the tests leave alone.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { NodeAction } from '@svc/protocol';
import { eventLog } from '../src/events/log.ts';
import { nodeService } from '../src/nodes/service.ts';
import type { Node, WaitingOn } from '../src/nodes/store/nodes.ts';
import { openStore } from '../src/store/index.ts';
import { tokenService } from '../src/tokens/service.ts';
import { json, startTestDaemon, type TestDaemon } from './helpers.ts';

/** A model every node can use without credentials: one scripted turn. */
export const SCRIPTED = {
  provider: 'scripted',
  model: 'replay',
  script: [{ text: 'done' }],
} as const;

/** A parsed JSON answer; tests read answers of many shapes and assert on them. */
// biome-ignore lint/suspicious/noExplicitAny: assertions, not types, check these answers
export type Answer = { status: number; body: any };

export interface NodesDaemon extends TestDaemon {
  /** Creates a node (scripted model unless the body names one); throws unless 200. */
  createNode(body: Record<string, unknown>, token?: string): Promise<Node>;
  /** `POST` JSON to `path`, answering status and parsed body. */
  post(path: string, body?: unknown, token?: string): Promise<Answer>;
  get(path: string, token?: string): Promise<Answer>;
  /** Mints the node token a broker of `nodeId` would get. */
  nodeToken(nodeId: string): string;
  /** Applies a broker-side transition (`start`, `fail`, …) directly. */
  broker(nodeId: string, action: NodeAction, reason?: string, waitingOn?: WaitingOn): Node;
  /** Records a turn for `nodeId` the way the broker plane stores it. */
  recordTurn(nodeId: string, index: number, toolCalls?: { id: string; name: string }[]): void;
}

/** A broker that never claims its node: it holds a slot and idles until stopped. */
export const IDLE_BROKER = fileURLToPath(new URL('./fixtures/idle-broker.ts', import.meta.url));

/** Daemon options that keep every node but the first one created queued. */
export const ONE_IDLE_SLOT = { concurrency: 1, entry: IDLE_BROKER };

export async function startNodesDaemon(): Promise<NodesDaemon> {
  // At `info`, so a test can read when a request was answered from its log line.
  const t = await startTestDaemon({
    sseKeepaliveMs: 200,
    brokers: ONE_IDLE_SLOT,
    logLevel: 'info',
  });
  // The stand-in broker's writes: each committed as it ends, so a test's read of the database
  // right after one sees it (a batch would commit it in the next turn of the event loop).
  const store = openStore(join(t.home, 'svc.db'), { batch: false });
  const events = eventLog(store);
  const tokens = tokenService(store, events);
  const side = nodeService({
    store,
    events,
    profiles: { settings: () => ({}) as never },
    models: {
      config: () => ({ default: null, profiles: {}, updated_at: '' }) as never,
      requireReady: () => {},
    },
  });
  const send = async (path: string, init: Parameters<TestDaemon['call']>[1]) => {
    const res = await t.call(path, init);
    const text = await res.text();
    return { status: res.status, body: text === '' ? null : JSON.parse(text) };
  };
  const daemon: NodesDaemon = {
    ...t,
    async createNode(body, token) {
      const res = await send('/v1/nodes', {
        ...json({ model: SCRIPTED, ...body }),
        ...(token !== undefined && { token }),
      });
      if (res.status !== 200)
        throw new Error(`create answered ${res.status}: ${JSON.stringify(res.body)}`);
      return res.body as Node;
    },
    post: (path, body = {}, token) =>
      send(path, { ...json(body), ...(token !== undefined && { token }) }),
    get: (path, token) => send(path, token === undefined ? {} : { token }),
    nodeToken(nodeId) {
      const row = store.nodes.get(nodeId)!;
      return tokens.mintNode(nodeId, row.app_id, row.scopes).secret;
    },
    broker(nodeId, action, reason, waitingOn) {
      const error = { code: 'test', message: reason ?? action };
      return side.act(nodeId, action, {
        reason,
        waitingOn,
        ...(action === 'fail' && { outcome: { result: null, summary: null, error } }),
      });
    },
    recordTurn(nodeId, index, toolCalls = []) {
      const at = new Date().toISOString();
      store.turns.insert({
        node_id: nodeId,
        index,
        model: { provider: 'scripted', model: 'replay' },
        input: [{ role: 'user', text: `turn ${index}`, mail_seq: null }],
        text: `answer ${index}`,
        tool_calls: toolCalls.map((c) => ({ ...c, input: {} })),
        usage: { input_tokens: 10, output_tokens: 5 },
        cost_usd: null,
        finish_reason: 'stop',
        started_at: at,
        finished_at: at,
        fingerprint: `turn-${index}`,
      });
    },
    async stop() {
      store.db.close();
      await t.stop();
    },
  };
  await daemon.createNode({ task: 'holds the only broker slot' });
  return daemon;
}
