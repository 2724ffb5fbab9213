/**
 * `nodes.attach`: a live broker's viewer socket. A real daemon runs a scripted node whose second
 * turn is a slow `bash` call; viewers connected over the unix socket get the transcript so far,
 * then the loop's events live, and the socket is gone with the broker.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createViewerSocket } from '../src/broker/viewer-socket.ts';
import { viewerSocketPath } from '../src/supervisor/supervisor.ts';
import {
  bash,
  createNode,
  eventually,
  isFinal,
  scripted,
  sleep,
  submit,
  waitForNode,
} from './broker-fixtures.ts';
import { envelope, json, startTestDaemon, type TestDaemon } from './helpers.ts';

interface Line {
  type: string;
  index?: number;
  kind?: string;
  turn?: { index: number };
  call?: { name: string; status: string };
  tool_calls?: { name: string; status: string; output: unknown }[];
}

/** A connected viewer: every line it has read, and when the broker closed it. */
interface Viewer {
  socket: Socket;
  lines: Line[];
  ended: Promise<void>;
}

function view(path: string): Promise<Viewer> {
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    const lines: Line[] = [];
    let rest = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      const parts = (rest + chunk).split('\n');
      rest = parts.pop() ?? '';
      for (const part of parts) lines.push(JSON.parse(part) as Line);
    });
    const ended = new Promise<void>((done) => socket.once('close', () => done()));
    socket.once('error', reject);
    socket.once('connect', () => resolve({ socket, lines, ended }));
  });
}

/**
 * Asks until the node's broker listens (409 until then): bounded by the node's own progress, as
 * a loaded machine may take seconds to start a broker.
 */
async function listening(attach: () => ReturnType<TestDaemon['call']>) {
  let answer = await attach();
  const deadline = Date.now() + 15_000;
  while (answer.status === 409 && Date.now() < deadline) {
    await answer.body?.cancel();
    await sleep(10);
    answer = await attach();
  }
  return answer;
}

/**
 * A `bash` call that waits for `name` to appear in the node's worktree (its cwd), bounded at
 * 30 s: the test opens the gate once its viewers are in place, so the node's progress waits on
 * the test's events instead of the test racing a `sleep`.
 */
const gated = (name: string) =>
  bash(`for i in $(seq 1500); do [ -e ${name} ] && exit 0; sleep 0.02; done; exit 1`);
const open = (nodeId: string, name: string) =>
  writeFileSync(join(t.home, 'worktrees', nodeId, name), '');

/** Waits (bounded) until the viewer has read a line that `match` accepts. */
async function until(viewer: Viewer, match: (line: Line) => boolean, what: string) {
  await eventually(() => viewer.lines.some(match), 10_000, what);
}

let t: TestDaemon;
let appToken: string;

beforeAll(async () => {
  t = await startTestDaemon({ brokers: { concurrency: 2 } });
  appToken = (await t.appToken(['svc:llm', 'svc:act'])).token;
});
afterAll(async () => {
  await t?.stop();
});

describe('nodes.attach on a real broker', () => {
  it('streams the transcript so far, then live events; the socket goes with the broker', async () => {
    const node = await createNode(t.call, {
      task: 'be watched',
      model: scripted('watched', [gated('one'), gated('two'), submit({ ok: true }, 'watched')]),
    });
    const attach = () => t.call(`/v1/nodes/${node.id}/attach`, { method: 'POST' });

    // 409 until the broker holds the node and listens, then 200 while it lives.
    const answer = await listening(attach);
    expect(answer.status).toBe(200);
    const socketPath = join(t.home, 'run', 'viewers', `${node.id}.sock`);
    expect(await answer.json()).toEqual({ node_id: node.id, socket_path: socketPath });
    expect(statSync(socketPath).mode & 0o777).toBe(0o600);
    expect(statSync(join(t.home, 'run', 'viewers')).mode & 0o777).toBe(0o700);

    const first = await view(socketPath);
    first.socket.write('viewers are read-only: this is ignored\n');
    open(node.id, 'one');
    await until(first, (l) => l.type === 'turn.recorded' && l.turn?.index === 2, 'turn 2 live');

    // A second viewer while turn 2's call runs: the transcript so far, each turn one line, with
    // its calls as last recorded; then the live events of that call and the next turn.
    const second = await view(socketPath);
    await until(second, (l) => l.type === 'turn' && l.index === 2, 'the transcript');
    open(node.id, 'two');
    await until(second, (l) => l.type === 'tool.recorded' && l.index === 2, 'the gate result');
    const transcript = second.lines.filter((l) => l.type === 'turn');
    expect(transcript.map((l) => l.index)).toEqual([1, 2]);
    expect(transcript[0]!.tool_calls).toEqual([
      expect.objectContaining({ name: 'bash', status: 'ok', output: expect.anything() }),
    ]);
    expect(transcript[1]!.tool_calls).toEqual([
      expect.objectContaining({ name: 'bash', status: 'pending' }),
    ]);
    // The transcript comes first: every live event follows it.
    expect(second.lines.slice(0, 2).map((l) => l.type)).toEqual(['turn', 'turn']);

    await Promise.all([first.ended, second.ended]);
    const live = (v: Viewer) => v.lines.filter((l) => l.type !== 'turn').map((l) => l.type);
    expect(live(first)).toEqual(
      expect.arrayContaining(['tool.started', 'tool.recorded', 'turn.started', 'turn.recorded']),
    );
    // Turn 3's submit was settled with its turn: recorded, never started.
    expect(live(second)).toEqual([
      'tool.recorded',
      'turn.started',
      'turn.recorded',
      'tool.recorded',
      'loop.ended',
    ]);
    for (const viewer of [first, second]) {
      expect(viewer.lines.at(-1)).toMatchObject({ type: 'loop.ended', kind: 'submitted' });
    }
    const recorded = (v: Viewer) =>
      v.lines.filter((l) => l.type === 'turn.recorded').map((l) => l.turn?.index);
    expect(recorded(second)).toEqual([3]);

    const done = await waitForNode(t.call, node.id, isFinal);
    expect(done.state).toBe('done');
    await eventually(() => !existsSync(socketPath), 5_000, 'the socket file removed');
  });

  it("a resumed node's viewers get the turns its new broker loaded", async () => {
    const node = await createNode(t.call, {
      task: 'yield, then be watched',
      model: scripted('resumed', [
        { tool_calls: [{ name: 'yield', input: { reason: 'a word first' } }] },
        gated('go'),
        submit({ ok: true }),
      ]),
    });
    await waitForNode(t.call, node.id, (n) => n.state === 'waiting');
    const attach = () => t.call(`/v1/nodes/${node.id}/attach`, { method: 'POST' });
    expect((await attach()).status).toBe(409);

    const sent = await t.call(`/v1/nodes/${node.id}/messages`, json({ text: 'go on' }));
    expect(sent.status).toBe(200);
    const answer = await listening(attach);
    expect(answer.status).toBe(200);
    const { socket_path } = (await answer.json()) as { socket_path: string };
    const viewer = await view(socket_path);
    open(node.id, 'go');
    await viewer.ended;
    // Turn 1 was recorded by the first broker: the second one loaded it.
    expect(viewer.lines[0]).toMatchObject({
      type: 'turn',
      index: 1,
      tool_calls: [expect.objectContaining({ name: 'yield', status: 'ok' })],
    });
    expect(viewer.lines.at(-1)).toMatchObject({ type: 'loop.ended', kind: 'submitted' });
  });

  it('never hands out a socket nobody listens on: a dead one at the path is 409', async () => {
    const node = await createNode(t.call, {
      task: 'outlive a dead socket',
      model: scripted('dead-socket', [gated('go'), submit({ ok: true })]),
    });
    const attach = () => t.call(`/v1/nodes/${node.id}/attach`, { method: 'POST' });
    const answer = await listening(attach);
    expect(answer.status).toBe(200);
    const { socket_path } = (await answer.json()) as { socket_path: string };
    // What a listener killed by a signal leaves: the file, and nobody listening on it.
    rmSync(socket_path);
    const child = spawn(process.execPath, [
      '-e',
      `require('node:net').createServer().listen(${JSON.stringify(socket_path)}, () => process.kill(process.pid, 'SIGKILL'))`,
    ]);
    await once(child, 'exit');
    expect(existsSync(socket_path)).toBe(true);
    await expect(view(socket_path)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    const refused = await attach();
    expect(refused.status).toBe(409);
    expect((await envelope(refused)).code).toBe('invalid_state');
    rmSync(socket_path);
    open(node.id, 'go');
    await waitForNode(t.call, node.id, isFinal);
  });

  it('answers 409 invalid_state on a node without a live broker', async () => {
    const node = await createNode(t.call, {
      task: 'quick',
      model: scripted('quick', [submit({ ok: 1 })]),
    });
    await waitForNode(t.call, node.id, isFinal);
    const res = await t.call(`/v1/nodes/${node.id}/attach`, { method: 'POST' });
    expect(res.status).toBe(409);
    const error = await envelope(res);
    expect(error.code).toBe('invalid_state');
    expect(error.message).toContain("'done'");
  });

  it('is for the owner alone: an app token gets 403 forbidden', async () => {
    const node = await createNode(t.call, {
      task: 'the app may not watch',
      model: scripted('app', [bash('sleep 1'), submit({ ok: 1 })]),
    });
    const res = await t.call(`/v1/nodes/${node.id}/attach`, { method: 'POST', token: appToken });
    expect(res.status).toBe(403);
    expect((await envelope(res)).code).toBe('forbidden');
    await waitForNode(t.call, node.id, isFinal);
  });
});

describe('the viewer socket', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'svcv-'));
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('drops a viewer that stops reading rather than buffering without bound', async () => {
    const sockets = createViewerSocket({
      path: join(dir, 'slow.sock'),
      maxBufferedBytes: 64 * 1024,
    });
    await sockets.listen([]);
    const slow = await view(sockets.path);
    slow.socket.pause();
    const fast = await view(sockets.path);
    const delta = 'x'.repeat(16 * 1024);
    // 2 MiB in all: far past the kernel's socket buffer plus the viewer's bound.
    for (let i = 0; i < 128; i++) {
      sockets.publish({ type: 'text.delta', index: 1, delta });
      await sleep(2);
    }
    await eventually(() => fast.lines.length === 128, 10_000, 'the fast viewer read every event');
    // The slow one was cut off: once resumed, it reads what was sent before the cut, then EOF.
    slow.socket.resume();
    await slow.ended;
    expect(slow.lines.length).toBeLessThan(128);
    await sockets.close({ kind: 'submitted', reason: 'done' });
    await fast.ended;
    expect(fast.lines.at(-1)).toEqual({ type: 'loop.ended', kind: 'submitted', reason: 'done' });
    expect(existsSync(sockets.path)).toBe(false);
  });

  it('names a listening socket only: gone from its path before its listener stops', async () => {
    const sockets = createViewerSocket({ path: join(dir, 'withdrawn.sock') });
    await sockets.listen([]);
    const viewer = await view(sockets.path);
    viewer.socket.pause(); // holds the close in its grace, the listener still open
    const closing = sockets.close({ kind: 'submitted', reason: 'done' });
    expect(existsSync(sockets.path)).toBe(false);
    await expect(view(sockets.path)).rejects.toMatchObject({ code: 'ENOENT' });
    viewer.socket.resume();
    await closing;
    // Bound under a name of its own and renamed into place: nothing of that name is left.
    expect(readdirSync(dir).filter((name) => name.startsWith('.'))).toEqual([]);
  });

  it('replaces a stale socket file left by a killed broker', async () => {
    const path = join(dir, 'stale.sock');
    const killed = createViewerSocket({ path });
    await killed.listen([]);
    // A killed broker never closes: its file stays (simulated by listening twice on one path).
    const next = createViewerSocket({ path });
    await next.listen([]);
    const viewer = await view(path);
    next.publish({ type: 'turn.started', index: 1 });
    await until(viewer, (l) => l.type === 'turn.started', 'an event from the new broker');
    await next.close();
    await killed.close();
  });

  it('keeps its path under the unix socket limit for a deep home', () => {
    const id = 'node_01ARZ3NDEKTSV4RRFFQ69G5FAV';
    expect(viewerSocketPath('/h/run/viewers', id)).toBe(`/h/run/viewers/${id}.sock`);
    const deep = `/${'d'.repeat(60)}/run/viewers`;
    const short = viewerSocketPath(deep, id);
    expect(short).toMatch(new RegExp(`^${deep}/[0-9a-f]{16}\\.sock$`));
    expect(Buffer.byteLength(short)).toBeLessThanOrEqual(103);
    expect(viewerSocketPath(deep, `${id.slice(0, -1)}G`)).not.toBe(short);
  });
});
