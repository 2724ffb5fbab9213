/**
 * A profile is no way around a creator's ceiling (docs/security.md, "Environment." and
 * "Network."): an app, or a node, that names the owner's profile gets its prompt and tools, but
 * neither more network than it may give nor the owner's env-store values. Real daemon, real
 * bubblewrap (a node's commands need it: without one they are refused), real brokers.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DaemonHandle, startDaemon } from '../src/index.ts';
import { besideDaemon } from './beside-daemon.ts';
import {
  bash,
  createNode,
  eventually,
  isFinal,
  type NodeDto,
  ok,
  scripted,
  submit,
  toolCall,
  toolResults,
  waitForNode,
} from './broker-fixtures.ts';
import { json, socketFetch, tempHome } from './helpers.ts';

const OWNER_SECRET = 'ghp_ownerSecret123456';
const APP_SECRET = 'app-key-value-7890';

type Call = ReturnType<typeof socketFetch>;
interface BashOut {
  stdout: string;
}

let handle: DaemonHandle;
let home: string;
let call: Call;
let asApp: Call;
let server: Server;
let port = 0;
let connections = 0;

beforeAll(async () => {
  home = tempHome('svcpc-');
  handle = await startDaemon({ home, logLevel: 'warn', brokers: { concurrency: 2 } });
  call = socketFetch(handle.socketPath, readFileSync(join(home, 'owner.token'), 'utf8').trim());
  server = createServer((socket) => {
    connections++;
    socket.end('hello from the host\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
  // The person's own profile: the host network and a tool key, for the person's nodes.
  await ok(
    await call('/v1/profiles/coder', json({ network: 'host', command_env: ['GH_TOKEN'] }, 'PUT')),
  );
  await ok(await call('/v1/profiles/coder/env/GH_TOKEN', json({ value: OWNER_SECRET }, 'PUT')));
  const app = await ok<{ token: string }>(
    await call('/v1/connect', json({ app_id: 'borrower', scopes: ['svc:llm', 'svc:act'] })),
  );
  asApp = (path, init = {}) => call(path, { ...init, token: app.token });
});

afterAll(async () => {
  await handle?.close();
  server?.close();
  if (home !== undefined) rmSync(home, { recursive: true, force: true });
});

/** Prints the key (if any), then dials the host's 127.0.0.1 server. */
const probe = (variable: string) =>
  bash(
    `echo "key=[$${variable}]"; bash -c 'exec 3<>/dev/tcp/127.0.0.1/${port} && head -1 <&3' 2>/dev/null || echo refused`,
  );

/** Runs `node` to its end; the stdout of its first tool call. */
async function firstOutput(node: NodeDto): Promise<string> {
  await waitForNode(call, node.id, isFinal, 60_000);
  const [first] = await toolResults(call, node.id, 2);
  return (first!.output as BashOut).stdout;
}

const network = (node: NodeDto) => (node as NodeDto & { network?: unknown }).network ?? null;

describe("a node on a profile not its creator's to give", () => {
  it("an app's node naming the owner's profile gets neither its network nor its key", async () => {
    // The profile does give both, to the person's own nodes, which follow it as it is now.
    const own = await createNode(call, {
      task: 'owner',
      profile: 'coder',
      model: scripted('pc-owner', [probe('GH_TOKEN'), submit({})]),
    });
    expect(network(own)).toBeNull();
    const ownOut = await firstOutput(own);
    expect(ownOut).toContain(`key=[${OWNER_SECRET}]`);
    expect(ownOut).toContain('hello from the host');
    const before = connections;
    const node = await createNode(asApp, {
      task: 'borrow',
      profile: 'coder',
      model: scripted('pc-app', [probe('GH_TOKEN'), submit({})]),
    });
    const stdout = await firstOutput(node);
    expect(stdout).toContain('key=[]');
    expect(stdout).not.toContain(OWNER_SECRET);
    expect(stdout).toContain('refused');
    expect(connections).toBe(before);
    // Kept on its row: the owner's raising the profile later gives it nothing more.
    expect(network(node)).toBe('none');
    // A run's root is made the same way.
    const run = await ok<{ node_id: string }>(
      await asApp(
        '/v1/runs',
        json({ task: 'run', profile: 'coder', model: scripted('pc-run', [submit({})]) }),
      ),
    );
    expect(network(await ok<NodeDto>(await call(`/v1/nodes/${run.node_id}`)))).toBe('none');
  });

  it("an app's node on the app's own profile gets its values; its child on the owner's does not", async () => {
    await ok(await asApp('/v1/profiles/borrower-tools', json({ command_env: ['APP_KEY'] }, 'PUT')));
    // Only the person sets env values, on any profile.
    await ok(
      await call('/v1/profiles/borrower-tools/env/APP_KEY', json({ value: APP_SECRET }, 'PUT')),
    );
    const child = scripted('pc-app-child', [probe('GH_TOKEN'), submit({})]);
    const node = await createNode(asApp, {
      task: 'own profile',
      profile: 'borrower-tools',
      model: scripted('pc-app-own', [
        probe('APP_KEY'),
        toolCall('spawn', { task: 'borrow', profile: 'coder', model: child }),
        toolCall('wait', {}),
        submit({}),
      ]),
    });
    expect(await firstOutput(node)).toContain(`key=[${APP_SECRET}]`);
    const results = await toolResults(call, node.id, 4);
    const childId = (results[1]!.output as { node_id: string }).node_id;
    const childOut = await firstOutput(await ok<NodeDto>(await call(`/v1/nodes/${childId}`)));
    expect(childOut).toContain('key=[]');
    expect(childOut).not.toContain(OWNER_SECRET);
  });

  it('a child a node without network makes on a host profile gets none', async () => {
    const before = connections;
    const child = scripted('pc-child', [probe('GH_TOKEN'), submit({})]);
    const parent = await createNode(call, {
      task: 'parent',
      network: 'none',
      model: scripted('pc-parent', [
        toolCall('spawn', { task: 'child', profile: 'coder', model: child }),
        toolCall('wait', {}),
        submit({}),
      ]),
    });
    await waitForNode(call, parent.id, isFinal, 60_000);
    const [spawned] = await toolResults(call, parent.id, 3);
    const childNode = await ok<NodeDto>(
      await call(`/v1/nodes/${(spawned!.output as { node_id: string }).node_id}`),
    );
    const stdout = await firstOutput(childNode);
    expect(stdout).toContain('refused');
    expect(stdout).not.toContain('hello from the host');
    expect(connections).toBe(before);
    expect(network(childNode)).toBe('none');
  });

  it("an app's node on the app's own profile has the network the person gave that profile", async () => {
    await ok(await asApp('/v1/profiles/borrower-net', json({}, 'PUT')));
    // Only the person gives a profile a network: here, for this app's nodes.
    await ok(await call('/v1/profiles/borrower-net', json({ network: 'host' }, 'PUT')));
    const before = connections;
    const node = await createNode(asApp, {
      task: 'given',
      profile: 'borrower-net',
      model: scripted('pc-app-net', [probe('NONE'), submit({})]),
    });
    expect(network(node)).toBeNull();
    expect(await firstOutput(node)).toContain('hello from the host');
    expect(connections).toBe(before + 1);
  });

  it("an app's fork of its node stored before the cap gets none of the owner's profile's network", async () => {
    const source = await createNode(asApp, {
      task: 'source',
      profile: 'coder',
      model: scripted('pc-fork-source', [probe('GH_TOKEN'), submit({})]),
    });
    await waitForNode(call, source.id, isFinal, 60_000);
    // As a row made before creates kept the cap: no network, so its profile's as it is now.
    sql('UPDATE nodes SET network = NULL WHERE id = ?', source.id);
    const before = connections;
    const fork = await ok<NodeDto>(
      await asApp(
        `/v1/nodes/${source.id}/fork`,
        // From its task alone: the copy replays the source's script, its probe first.
        json({ task: 'again', through_turn: 0 }),
      ),
    );
    expect(network(fork)).toBe('none');
    const stdout = await firstOutput(fork);
    expect(stdout).toContain('refused');
    expect(stdout).not.toContain(OWNER_SECRET);
    expect(connections).toBe(before);
  });
});

describe('a change to a profile', () => {
  it('reaches the nodes running on it: the old sandbox ends, the next command goes by the new plan', async () => {
    const put = (path: string, body: unknown) => call(path, json(body, 'PUT'));
    await ok(await put('/v1/profiles/live', { network: 'host', command_env: ['LIVE_KEY'] }));
    await ok(await put('/v1/profiles/live/env/LIVE_KEY', { value: 'first-value-1' }));
    const node = await createNode(call, {
      task: 'live',
      profile: 'live',
      model: scripted('pc-live', [
        probe('LIVE_KEY'),
        // Waits for a gate nobody opens: only its sandbox's end ends it.
        bash('touch waiting; for i in $(seq 1500); do [ -e go ] && exit 0; sleep 0.02; done'),
        probe('LIVE_KEY'),
        submit({}),
      ]),
    });
    const worktree = join(home, 'worktrees', node.id);
    await eventually(() => existsSync(join(worktree, 'waiting')), 30_000, 'the gate waiting');
    const [first] = await toolResults(call, node.id, 1);
    expect((first!.output as BashOut).stdout).toContain('key=[first-value-1]');
    expect((first!.output as BashOut).stdout).toContain('hello from the host');
    const before = connections;
    // The person narrows the profile, and changes its key, while the node runs.
    await ok(await put('/v1/profiles/live', { network: 'none' }));
    await ok(await put('/v1/profiles/live/env/LIVE_KEY', { value: 'second-value-2' }));
    await waitForNode(call, node.id, isFinal, 60_000);
    const results = await toolResults(call, node.id, 4);
    expect(results[1]).toMatchObject({ name: 'bash', status: 'error' });
    const after = (results[2]!.output as BashOut).stdout;
    expect(after).toContain('key=[second-value-2]');
    expect(after).toContain('refused');
    expect(connections).toBe(before);
  }, 90_000);
});

/** A statement on the database beside the daemon: a row as an older daemon left it. */
function sql(statement: string, ...params: string[]): void {
  const db = besideDaemon(home);
  try {
    db.prepare(statement).run(...params);
  } finally {
    db.close();
  }
}
