/**
 * A node's sandbox is made at its launch, beside its claim, not at its first command: real
 * bubblewrap and its executor, the loop's port over real HTTP on a unix socket (the in-memory
 * daemon behind a gate that holds chosen requests until the sandbox is there, or gone). A node
 * dropped before its claim is answered leaves no process; a node whose tools have no `bash` has
 * the sandbox closed once its claim says so.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ParsedLaunch, startNodeLoop } from '../../src/broker/node-loop.ts';
import { makePlan } from '../../src/sandbox/plan.ts';
import { probeSandbox } from '../../src/sandbox/probe.ts';
import { loadSandboxSettings } from '../../src/sandbox/settings.ts';
import { MemoryDaemon } from './memory-daemon.ts';
import { serveMemoryDaemon } from './memory-daemon-server.ts';

const dir = mkdtempSync(join(tmpdir(), 'svc-early-'));
const worktree = join(dir, 'worktrees', 'nd_early');
mkdirSync(worktree, { recursive: true });
const host = probeSandbox(dir);
const daemon = new MemoryDaemon();
const tokens = new Map<string, string>();
const backSocket = join(dir, 'back.sock');
const frontSocket = join(dir, 'front.sock');
let back: { close(): Promise<void> };

/** Requests whose path ends so wait for the condition before they go on to the daemon. */
const gates: { suffix: string; until: () => boolean; seen: boolean }[] = [];
/** Requests held for good (a daemon that never answers), cut when the test ends. */
const held: { destroy(): void }[] = [];
const front = createServer((req, res) => {
  const gate = gates.find((g) => req.url?.endsWith(g.suffix));
  const forward = () => {
    const out = request(
      { socketPath: backSocket, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(out);
  };
  if (gate === undefined) return forward();
  gate.seen = true;
  if (gate.until === never) return void held.push(res);
  // Bounded: a condition that never holds leaves the request unanswered, and the test fails.
  let tries = 0;
  const check = () => {
    if (gate.until()) return forward();
    if (++tries < 2_000) setTimeout(check, 5);
  };
  check();
});
const never = () => false;

beforeAll(async () => {
  back = await serveMemoryDaemon(daemon, backSocket, tokens);
  await new Promise<void>((resolve) => front.listen(frontSocket, resolve));
});
afterAll(async () => {
  for (const res of held) res.destroy();
  await new Promise((resolve) => front.close(resolve));
  await back.close();
  rmSync(dir, { recursive: true, force: true });
});

/** This process's sandbox executors (the C one or Node's, as the plan has it). */
function executors(): number[] {
  const parents = new Map<number, number>();
  const marked: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').startsWith('/run/svc/')) {
        marked.push(Number(entry));
      }
    } catch {
      // Gone meanwhile.
    }
  }
  const mine = (pid: number) => {
    for (let p = parents.get(pid), hops = 0; p !== undefined && hops < 64; hops++) {
      if (p === process.pid) return true;
      p = parents.get(p);
    }
    return false;
  };
  return marked.filter(mine);
}
const present = () => executors().length > 0;
const absent = () => executors().length === 0;

/** Until `condition` holds, looking again as the machine lets us; bounded. */
async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 2_000 && !condition(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(condition()).toBe(true);
}

function launchOf(scopes: string[], script: unknown[]): ParsedLaunch {
  const id = daemon.createNode({ task: 'early sandbox', cwd: worktree, scopes: scopes as never });
  const token = `svc_node_${id}`;
  tokens.set(token, id);
  const plan = makePlan({
    settings: loadSandboxSettings(dir),
    host,
    svcHome: dir,
    scopes: scopes as never,
    worktree,
  });
  return {
    node_id: id,
    token,
    socket_path: frontSocket,
    cwd: worktree,
    model: { provider: 'scripted', model: 'early', script: script as never },
    env: {},
    sandbox: plan,
  } as ParsedLaunch;
}

const submit = { tool_calls: [{ name: 'submit', input: { summary: 'done' } }] };

describe.skipIf(!host.ready)("a node's sandbox, made at its launch", () => {
  it('is made while its claim is on the way, and its first command runs in it', async () => {
    const launch = launchOf(
      ['svc:llm', 'svc:act'],
      [{ tool_calls: [{ name: 'bash', input: { command: 'echo early' } }] }, submit],
    );
    const gate = { suffix: `/${launch.node_id}/broker/claim`, until: present, seen: false };
    gates.push(gate);
    const loop = startNodeLoop(launch, () => {});
    expect((await loop.ended)?.kind).toBe('submitted');
    expect(gate.seen).toBe(true);
    const bash = daemon.get(launch.node_id).turns[0]?.tool_calls[0];
    expect(bash).toMatchObject({ status: 'ok', output: { exit_code: 0, stdout: 'early\n' } });
    await until(absent);
  });

  it('is closed, leaving no process, when its node is dropped before its claim is answered', async () => {
    const launch = launchOf(['svc:llm', 'svc:act'], [submit]);
    gates.push({ suffix: `/${launch.node_id}/broker/claim`, until: never, seen: false });
    const loop = startNodeLoop(launch, () => {});
    await until(present);
    await loop.drop();
    await until(absent);
  });

  it('is closed once the claim shows the node has no bash', async () => {
    const launch = launchOf(
      ['svc:llm'],
      [{ tool_calls: [{ name: 'report', input: { text: 'x' } }] }, submit],
    );
    // Its first turn's record waits until no sandbox of this process is left.
    const gate = { suffix: `/${launch.node_id}/broker/turns`, until: absent, seen: false };
    gates.push(gate);
    const loop = startNodeLoop(launch, () => {});
    expect((await loop.ended)?.kind).toBe('submitted');
    expect(gate.seen).toBe(true);
  });
});
