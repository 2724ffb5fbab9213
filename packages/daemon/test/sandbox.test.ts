/**
 * Confinement end to end (issue 28, docs/security.md "The sandbox"): real daemons, real
 * bubblewrap, real brokers running scripted nodes. What a scoped app token's `POST /v1/bash`
 * and a node's `bash` tool (and its file tools) reach is exactly what their scopes bind: the
 * owner token, the database and another node's worktree are absent; a read scope reads and
 * refuses writes; a rw scope writes; a directory outside every scope does not exist; a variable
 * of the daemon's own environment is not there; 127.0.0.1 is unreachable unless the profile
 * gives the host network; a fork bomb meets its bound while the daemon answers. Where no sandbox
 * can be made, such commands are refused with 503 and run nothing.
 */

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DaemonHandle, startDaemon } from '../src/index.ts';
import {
  bash,
  createNode,
  eventually,
  isFinal,
  ok,
  scripted,
  submit,
  toolCall,
  toolResults,
  waitForNode,
} from './broker-fixtures.ts';
import { envelope, json, socketFetch, tempHome } from './helpers.ts';

// In the daemon's own environment only (it runs in this process): no command may see it.
const DAEMON_SECRET = 'SVC_SANDBOX_TEST_SECRET';
const DAEMON_SECRET_VALUE = 'daemon-only-7f3a9c1e5b';
process.env[DAEMON_SECRET] = DAEMON_SECRET_VALUE;

interface BashResult {
  exit_code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  sandbox: string | null;
  warning?: string;
}

interface Daemon {
  handle: DaemonHandle;
  home: string;
  owner: string;
  call: ReturnType<typeof socketFetch>;
  stop(): Promise<void>;
}

async function start(
  settings: Record<string, unknown> = {},
  opts: { sandbox?: 'on' | 'off' } = {},
): Promise<Daemon> {
  const home = tempHome('svcsb-');
  writeFileSync(join(home, 'sandbox.json'), JSON.stringify(settings));
  const handle = await startDaemon({
    home,
    logLevel: 'warn',
    brokers: { concurrency: 2 },
    ...opts,
  });
  const owner = readFileSync(join(home, 'owner.token'), 'utf8').trim();
  return {
    handle,
    home,
    owner,
    call: socketFetch(handle.socketPath, owner),
    async stop() {
      await handle.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

const scratch = mkdtempSync(join(tmpdir(), 'svcsb-dirs-'));
const readDir = join(scratch, 'readable');
const rwDir = join(scratch, 'writable');
const outsideDir = join(scratch, 'outside');
for (const dir of [readDir, rwDir, outsideDir]) mkdirSync(dir);
writeFileSync(join(readDir, 'a.txt'), 'readable-content');
writeFileSync(join(outsideDir, 'secret.txt'), 'outside-content');
const SCOPES = [
  'svc:llm',
  'svc:act',
  `svc:files:read:user:${readDir}`,
  `svc:files:rw:user:${rwDir}`,
];

let d: Daemon;
let appToken: string;
let server: Server;
let port: number;
let connections = 0;
let otherWorktree: string;

beforeAll(async () => {
  mkdirSync(join(rwDir, 'conf'));
  writeFileSync(join(rwDir, 'conf', 'secret'), 'conf-secret');
  d = await start({
    pids: 64,
    memory_mb: 512,
    hide: [join(rwDir, 'late.key'), join(rwDir, 'conf', 'secret')],
  });
  const connect = await ok<{ token: string }>(
    await d.call('/v1/connect', json({ app_id: 'sandboxed', scopes: SCOPES })),
  );
  appToken = connect.token;
  server = createServer((socket) => {
    connections++;
    socket.end('hello from the host\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
  // Another node, with a file in its worktree.
  const other = await createNode(d.call, {
    task: 'leave a file',
    model: scripted('sb-other', [bash('echo private > mine.txt'), submit({})]),
  });
  await waitForNode(d.call, other.id, isFinal);
  otherWorktree = join(d.home, 'worktrees', other.id);
  expect(readFileSync(join(otherWorktree, 'mine.txt'), 'utf8')).toBe('private\n');
});

afterAll(async () => {
  await d?.stop();
  server?.close();
  rmSync(scratch, { recursive: true, force: true });
});

async function appBash(command: string, extra: Record<string, unknown> = {}) {
  const res = await d.call('/v1/bash', {
    ...json({ command, cwd: rwDir, timeout_ms: 30_000, ...extra }),
    token: appToken,
  });
  return { status: res.status, body: (await res.json()) as BashResult };
}

/** Runs `commands` as bash calls of a node made by `token` (its scopes), then its results. */
async function nodeRun(
  name: string,
  turns: unknown[],
  extra: Record<string, unknown> = {},
  token?: string,
) {
  const call =
    token === undefined
      ? d.call
      : (path: string, init: Parameters<Daemon['call']>[1] = {}) =>
          d.call(path, { ...init, token });
  const node = await createNode(call, {
    task: name,
    model: scripted(name, [...turns, submit({})]),
    ...extra,
  });
  await waitForNode(d.call, node.id, isFinal, 60_000);
  const results = await toolResults(d.call, node.id, turns.length + 1);
  return { node, results: results.slice(0, turns.length) };
}

const out = (r: { output: unknown }) => r.output as BashResult;

describe('a scoped app token: POST /v1/bash', () => {
  it('runs confined and says so', async () => {
    const { status, body } = await appBash('echo "$SVC_SANDBOX"; pwd');
    expect(status).toBe(200);
    expect(body).toMatchObject({ exit_code: 0, sandbox: 'bubblewrap' });
    expect(body.stdout).toBe(`bubblewrap\n${rwDir}\n`);
  });

  it('cannot read the owner token, the database or another node’s worktree', async () => {
    const { body } = await appBash(
      `cat ${d.home}/owner.token; cat ${d.home}/svc.db | head -c 16; ls ${otherWorktree}; cat ${otherWorktree}/mine.txt; ls ${d.home}/worktrees`,
    );
    expect(body.exit_code).not.toBe(0);
    expect(body.stdout).not.toContain(d.owner);
    expect(body.stdout).not.toContain('SQLite');
    expect(body.stdout).not.toContain('private');
    expect(body.stderr).toContain('No such file or directory');
  });

  it('reads a read-scoped directory and is refused writes there', async () => {
    const { body } = await appBash(`cat ${readDir}/a.txt; echo x > ${readDir}/new.txt`);
    expect(body.stdout).toBe('readable-content');
    expect(body.stderr).toMatch(/Read-only file system/);
    expect(existsSync(join(readDir, 'new.txt'))).toBe(false);
  });

  it('writes a rw-scoped directory, on the host', async () => {
    const { body } = await appBash(`echo written > ${rwDir}/out.txt`);
    expect(body.exit_code).toBe(0);
    expect(readFileSync(join(rwDir, 'out.txt'), 'utf8')).toBe('written\n');
  });

  it("binds its own app's app-form files scopes, and not another app's", async () => {
    const own = join(scratch, 'app-own');
    const other = join(scratch, 'app-other');
    mkdirSync(own);
    mkdirSync(other);
    writeFileSync(join(other, 'theirs.txt'), 'other-app');
    const { token } = await ok<{ token: string }>(
      await d.call(
        '/v1/connect',
        json({
          app_id: 'sandboxed',
          scopes: [
            'svc:llm',
            'svc:act',
            `svc:files:rw:app:sandboxed:${own}`,
            `svc:files:read:app:elsewhere:${other}`,
          ],
        }),
      ),
    );
    const res = await d.call('/v1/bash', {
      ...json({ command: `echo mine > ${own}/x.txt && cat ${other}/theirs.txt`, cwd: own }),
      token,
    });
    const body = await ok<BashResult>(res);
    expect(readFileSync(join(own, 'x.txt'), 'utf8')).toBe('mine\n');
    expect(body.stdout).not.toContain('other-app');
    expect(body.stderr).toContain('No such file or directory');
  });

  it('finds a directory outside every scope absent', async () => {
    const { body } = await appBash(`ls ${outsideDir}; cat ${outsideDir}/secret.txt; ls ${scratch}`);
    expect(body.stdout).not.toContain('outside-content');
    expect(body.stdout).not.toContain('outside');
    expect(body.stderr).toContain(`${outsideDir}': No such file or directory`);
  });

  it('refuses a cwd outside its sandbox without saying whether it exists', async () => {
    const res = await d.call('/v1/bash', {
      ...json({ command: 'true', cwd: outsideDir }),
      token: appToken,
    });
    expect(res.status).toBe(400);
    expect(await envelope(res)).toMatchObject({ code: 'invalid_request', field: 'cwd' });
  });

  it('has none of the daemon’s environment', async () => {
    const { body } = await appBash(`env; echo "[$${DAEMON_SECRET}]"`, { env: { MINE: 'given' } });
    expect(body.stdout).not.toContain(DAEMON_SECRET_VALUE);
    expect(body.stdout).toContain('[]');
    expect(body.stdout).toContain('MINE=given');
    expect(body.stdout).toContain(`HOME=/tmp`);
  });

  it('reaches no TCP port on 127.0.0.1 (no network by default)', async () => {
    const before = connections;
    const { body } = await appBash(
      `bash -c 'exec 3<>/dev/tcp/127.0.0.1/${port} && head -1 <&3' && echo connected`,
    );
    expect(body.stdout).not.toContain('connected');
    expect(body.stdout).not.toContain('hello from the host');
    expect(connections).toBe(before);
  });

  it('holds a fork bomb to its bound while the daemon keeps answering', async () => {
    const status = await ok<{ sandbox: { limits: { pids: number; by: string | null } } }>(
      await d.call('/v1/status'),
    );
    expect(status.sandbox.limits).toMatchObject({ pids: 64 });
    expect(status.sandbox.limits.by).not.toBeNull();
    const bomb = appBash('for i in $(seq 200); do sleep 60 & done; echo spawned', {
      timeout_ms: 4_000,
    });
    const health = await d.call('/healthz');
    expect(health.status).toBe(200);
    const { body } = await bomb;
    // The shell could not start the 200 sleeps: the bound said no well before.
    expect(body.stderr).toMatch(/fork|Resource temporarily unavailable/i);
    const bomb2 = await appBash(':(){ :|:& };:', { timeout_ms: 2_000 });
    expect(bomb2.status).toBe(200);
    expect((await d.call('/v1/status')).status).toBe(200);
  });
});

describe('a node: its bash tool and file tools', () => {
  it('an app’s node sees exactly its scopes, in its shell and in its file tools', async () => {
    const { results } = await nodeRun(
      'sb-app-node',
      [
        bash(`cat ${d.home}/owner.token; ls ${otherWorktree}; echo "[$${DAEMON_SECRET}]"`),
        bash(`cat ${readDir}/a.txt; echo x > ${readDir}/n.txt`),
        bash(`echo node-wrote > ${rwDir}/node.txt && cat ${rwDir}/node.txt`),
        bash(`ls ${outsideDir}`),
        toolCall('read_file', { path: `${d.home}/owner.token` }),
        toolCall('read_file', { path: `${outsideDir}/secret.txt` }),
        toolCall('read_file', { path: `${readDir}/a.txt` }),
        toolCall('write_file', { path: `${readDir}/tool.txt`, content: 'no' }),
        toolCall('write_file', { path: 'here.txt', content: 'in my worktree' }),
      ],
      {},
      appToken,
    );
    const [secrets, read, write, outside, token, outsideFile, readFile, roWrite, own] = results;
    expect(out(secrets!).stdout).not.toContain(d.owner);
    expect(out(secrets!).stdout).toContain('[]');
    expect(out(secrets!).stderr).toContain('No such file or directory');
    expect(out(secrets!).sandbox).toBe('bubblewrap');
    expect(out(read!).stdout).toBe('readable-content');
    expect(out(read!).stderr).toMatch(/Read-only file system/);
    expect(out(write!).stdout).toBe('node-wrote\n');
    expect(readFileSync(join(rwDir, 'node.txt'), 'utf8')).toBe('node-wrote\n');
    expect(out(outside!).stderr).toContain('No such file or directory');
    expect(token).toMatchObject({ status: 'error' });
    expect(JSON.stringify(token!.output)).not.toContain(d.owner);
    expect(outsideFile).toMatchObject({ status: 'error' });
    expect(readFile).toMatchObject({ status: 'ok', output: { content: 'readable-content' } });
    expect(roWrite).toMatchObject({ status: 'error' });
    expect(existsSync(join(readDir, 'tool.txt'))).toBe(false);
    expect(own).toMatchObject({ status: 'ok' });
  });

  it('runs its commands through the executor its plan names (C, or the Node fall-back)', async () => {
    const { results } = await nodeRun('sb-executor', [bash('ls /run/svc')]);
    const expected = process.env.SVC_SANDBOX_EXECUTOR === 'node' ? 'node' : 'executor';
    expect(out(results[0]!).stdout).toBe(`${expected}\n`);
  });

  it('the owner’s node (no scope list) is confined too: the home hidden, no daemon env', async () => {
    const { results } = await nodeRun('sb-owner-node', [
      bash(`cat ${d.home}/owner.token; cat ${otherWorktree}/mine.txt; env; echo pwd=$(pwd)`),
      toolCall('read_file', { path: `${d.home}/owner.token` }),
    ]);
    const shell = out(results[0]!);
    expect(shell.sandbox).toBe('bubblewrap');
    expect(shell.stdout).not.toContain(d.owner);
    expect(shell.stdout).not.toContain('private');
    expect(shell.stdout).not.toContain(DAEMON_SECRET_VALUE);
    expect(shell.stdout).toMatch(/pwd=.*\/worktrees\/nd_/);
    expect(results[1]).toMatchObject({ status: 'error' });
    expect(JSON.stringify(results[1]!.output)).not.toContain(d.owner);
  });

  it('commits in its git worktree: the repository’s common directory is bound for git', async () => {
    const repo = join(scratch, 'repo');
    mkdirSync(repo);
    const git = (...args: string[]) =>
      execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8' });
    git('init', '-q', '-b', 'main');
    git('config', 'user.email', 'person@example.com');
    git('config', 'user.name', 'Person');
    writeFileSync(join(repo, 'README'), 'hello\n');
    git('add', 'README');
    git('commit', '-q', '-m', 'first');
    const { node, results } = await nodeRun(
      'sb-git',
      [
        bash(
          'echo more >> README && git commit -q -am "from the sandbox" && git log --oneline | wc -l',
        ),
      ],
      { workspace: { repo } },
    );
    expect(out(results[0]!)).toMatchObject({ exit_code: 0, stdout: '2\n' });
    expect(git('log', '--format=%s', '-1', `svc/${node.id}`).trim()).toBe('from the sandbox');
    expect(git('log', '--format=%s', '-1', 'main').trim()).toBe('first');
  });

  it('takes a network from its create, within what its creator may give', async () => {
    const refused = await d.call('/v1/nodes', {
      ...json({ task: 'net', model: scripted('sb-net-app', [submit({})]), network: 'host' }),
      token: appToken,
    });
    expect(refused.status).toBe(403);
    expect(await envelope(refused)).toMatchObject({ code: 'forbidden', field: 'network' });
    const before = connections;
    const { node, results } = await nodeRun(
      'sb-net-create',
      [bash(`bash -c 'exec 3<>/dev/tcp/127.0.0.1/${port} && head -1 <&3' || echo refused`)],
      { network: 'host' },
    );
    expect((node as { network?: unknown }).network).toBe('host');
    expect(out(results[0]!).stdout).toContain('hello from the host');
    expect(connections).toBe(before + 1);
  });

  it('reaches only the domains its profile allows, through its proxy', async () => {
    await ok(
      await d.call('/v1/profiles/listed', json({ network: { allow: ['127.0.0.1'] } }, 'PUT')),
    );
    const before = connections;
    const { results } = await nodeRun(
      'sb-net-list',
      [
        // The listed host, tunnelled through the proxy (no_proxy emptied: 127.0.0.1 is on it by
        // default); the host's server speaks no HTTP, hence --http0.9.
        bash(
          `no_proxy= NO_PROXY= curl -s -p --http0.9 http://127.0.0.1:${port}/ || echo failed-$?`,
        ),
        // Any other host: the proxy says 403, before any lookup.
        bash(`curl -s -o /dev/null -w '%{http_code}' http://example.com/; echo`),
        bash('curl -s https://example.org/ >/dev/null; echo "exit=$?"'),
        // Around the proxy: no network at all.
        bash(`bash -c 'exec 3<>/dev/tcp/127.0.0.1/${port}' 2>/dev/null || echo direct-refused`),
      ],
      { profile: 'listed' },
    );
    expect(out(results[0]!).stdout).toContain('hello from the host');
    expect(out(results[1]!).stdout).toBe('403\n');
    expect(out(results[2]!).stdout).not.toBe('exit=0\n');
    expect(out(results[3]!).stdout).toContain('direct-refused');
    expect(connections).toBe(before + 1);
  });

  it('gets the env-store values its profile names in command_env, and no other', async () => {
    await ok(await d.call('/v1/profiles/tooling', json({ command_env: ['TOOL_KEY'] }, 'PUT')));
    for (const [name, value] of [
      ['TOOL_KEY', 'tool-key-value-123'],
      ['PLUGIN_SECRET', 'plugin-secret-456'],
    ]) {
      const res = await d.call(`/v1/profiles/tooling/env/${name}`, json({ value }, 'PUT'));
      expect(res.status).toBe(200);
    }
    const { results } = await nodeRun('sb-env', [bash('echo "[$TOOL_KEY][$PLUGIN_SECRET]"')], {
      profile: 'tooling',
    });
    expect(out(results[0]!).stdout).toBe('[tool-key-value-123][]\n');
  });

  it('reaches 127.0.0.1 only when its profile gives the host network', async () => {
    const dial = bash(
      `bash -c 'exec 3<>/dev/tcp/127.0.0.1/${port} && head -1 <&3' || echo refused`,
    );
    const closed = await nodeRun('sb-net-none', [dial]);
    expect(out(closed.results[0]!).stdout).toContain('refused');

    // Only the owner hands out the host network.
    const app = await d.call('/v1/profiles/app-net', {
      ...json({ network: 'host' }, 'PUT'),
      token: appToken,
    });
    expect(app.status).toBe(403);
    expect(await envelope(app)).toMatchObject({ code: 'forbidden', field: 'network' });

    const put = await d.call('/v1/profiles/netted', json({ network: 'host' }, 'PUT'));
    expect(await ok<{ network: string }>(put)).toMatchObject({ network: 'host' });
    const before = connections;
    const open = await nodeRun('sb-net-host', [dial], { profile: 'netted' });
    expect(out(open.results[0]!).stdout).toContain('hello from the host');
    expect(connections).toBe(before + 1);
  });
});

describe('what a scope cannot reach, whatever it names (review of issue 28)', () => {
  it('a scope naming a link into the home, or a path in it, binds nothing', async () => {
    // The app plants links in its rw directory, then names them (and the home) in a node's scopes.
    await appBash(
      `ln -sfn ${d.home}/owner.token ${rwDir}/tok; ln -sfn ${d.home}/daemon.sock ${rwDir}/sock; ln -sfn /etc ${rwDir}/etc`,
    );
    const { results } = await nodeRun(
      'sb-review-links',
      [
        bash(
          `cat ${d.home}/owner.token ${rwDir}/tok 2>&1; ls -la ${d.home} 2>&1; test -S ${d.home}/daemon.sock && echo SOCKET; cat ${rwDir}/etc/hostname 2>&1 | head -1`,
        ),
        toolCall('read_file', { path: `${rwDir}/tok` }),
      ],
      {
        scopes: [
          ...SCOPES,
          `svc:files:read:user:${rwDir}/tok`,
          `svc:files:rw:user:${rwDir}/sock`,
          `svc:files:read:user:${rwDir}/etc`,
        ],
      },
      appToken,
    );
    const shell = out(results[0]!);
    expect(shell.stdout).not.toContain(d.owner);
    expect(shell.stdout).not.toContain('SOCKET');
    expect(shell.stdout).not.toContain('svc.db');
    expect(results[1]).toMatchObject({ status: 'error' });
    expect(JSON.stringify(results[1]!.output)).not.toContain(d.owner);
  });

  it('the owner’s node naming the home in a child’s scopes binds none of it', async () => {
    const { results } = await nodeRun(
      'sb-review-home',
      [bash(`cat ${d.home}/owner.token 2>&1; ls ${d.home}/worktrees 2>&1`)],
      { scopes: ['svc:llm', 'svc:act', `svc:files:rw:user:${d.home}`] },
    );
    expect(out(results[0]!).stdout).not.toContain(d.owner);
    expect(out(results[0]!).stdout).not.toContain(otherWorktree.split('/').at(-1));
  });

  it('a secret made after its sandbox is hidden from its next command', async () => {
    rmSync(join(rwDir, 'late.key'), { force: true });
    rmSync(join(rwDir, 'gate'), { force: true });
    const node = await createNode(
      (path: string, init: Parameters<Daemon['call']>[1] = {}) =>
        d.call(path, { ...init, token: appToken }),
      {
        task: 'late secret',
        model: scripted('sb-late', [
          // Holds its sandbox open until the test has made the secret (bounded: 30 s).
          bash(
            `for i in $(seq 600); do [ -f ${rwDir}/gate ] && break; sleep 0.05; done; echo first`,
          ),
          bash(`cat ${rwDir}/late.key 2>&1 || true; echo done`),
          submit({}),
        ]),
      },
    );
    const running = async () =>
      (
        await ok<{ data: { state: string }[] }>(await d.call(`/v1/nodes/${node.id}/jobs`))
      ).data.some((j) => j.state === 'running');
    await eventually(running, 30_000, 'the first command running');
    writeFileSync(join(rwDir, 'late.key'), 'LATE-SECRET');
    writeFileSync(join(rwDir, 'gate'), '');
    await waitForNode(d.call, node.id, isFinal, 60_000);
    const results = await toolResults(d.call, node.id, 3);
    expect(out(results[0]!).stdout).toContain('first');
    expect(out(results[1]!).stdout).toContain('done');
    expect(out(results[1]!).stdout).not.toContain('LATE-SECRET');
  });

  it('a hidden file’s parent cannot be moved aside to unhide it', async () => {
    const { body } = await appBash(
      `cat ${rwDir}/conf/secret; mv ${rwDir}/conf ${rwDir}/conf2 2>&1; cat ${rwDir}/conf2/secret 2>/dev/null; echo end`,
    );
    expect(body.stdout).not.toContain('conf-secret');
    expect(readFileSync(join(rwDir, 'conf', 'secret'), 'utf8')).toBe('conf-secret');
  });
});

describe('no sandbox to be had', () => {
  let bare: Daemon;
  let bareApp: string;
  const marker = join(rwDir, 'must-not-exist');
  beforeAll(async () => {
    process.env.SVC_BWRAP = '/nonexistent/bwrap';
    try {
      bare = await start();
    } finally {
      delete process.env.SVC_BWRAP;
    }
    bareApp = (
      await ok<{ token: string }>(
        await bare.call('/v1/connect', json({ app_id: 'bare', scopes: SCOPES })),
      )
    ).token;
  });
  afterAll(() => bare?.stop());

  it('refuses a scoped command with 503 sandbox_unavailable naming cause and fix, and runs nothing', async () => {
    const res = await bare.call('/v1/bash', {
      ...json({ command: `touch ${marker}`, cwd: rwDir }),
      token: bareApp,
    });
    expect(res.status).toBe(503);
    const error = await envelope(res);
    expect(error.code).toBe('sandbox_unavailable');
    expect(error.message).toMatch(/SVC_BWRAP names \/nonexistent\/bwrap/);
    expect(error.message).toMatch(/apt-get install bubblewrap/);
    expect(existsSync(marker)).toBe(false);
  });

  it('shows it in GET /v1/status, as model readiness is shown', async () => {
    const status = await ok<{ sandbox: Record<string, unknown> }>(await bare.call('/v1/status'));
    expect(status.sandbox).toMatchObject({ mode: 'on', ready: false, tool: null });
    expect(String(status.sandbox.fix)).toMatch(/bubblewrap/);
  });

  it('a node’s bash reads the refusal as a tool error; nothing runs', async () => {
    const node = await createNode(bare.call, {
      task: 'try',
      model: scripted('sb-bare', [bash(`touch ${marker}`), submit({})]),
    });
    await waitForNode(bare.call, node.id, isFinal, 60_000);
    const [result] = await toolResults(bare.call, node.id, 2);
    expect(result).toMatchObject({ name: 'bash', status: 'error' });
    expect(String(result!.output)).toMatch(/^sandbox_unavailable: /);
    expect(existsSync(marker)).toBe(false);
  });

  it('the owner’s own command still runs: the person is not confined', async () => {
    const res = await bare.call('/v1/bash', json({ command: 'echo mine', cwd: rwDir }));
    expect(await ok<BashResult>(res)).toMatchObject({ stdout: 'mine\n', sandbox: null });
  });
});

describe('--sandbox off', () => {
  it('runs scoped commands unconfined, and every result and the status say so', async () => {
    const off = await start({}, { sandbox: 'off' });
    try {
      const app = (
        await ok<{ token: string }>(
          await off.call('/v1/connect', json({ app_id: 'off', scopes: SCOPES })),
        )
      ).token;
      const res = await off.call('/v1/bash', {
        ...json({ command: `cat ${outsideDir}/secret.txt`, cwd: rwDir }),
        token: app,
      });
      const body = await ok<BashResult>(res);
      expect(body).toMatchObject({ stdout: 'outside-content', sandbox: 'off' });
      expect(body.warning).toMatch(/unconfined/);
      const status = await ok<{ sandbox: Record<string, unknown> }>(await off.call('/v1/status'));
      expect(status.sandbox).toMatchObject({ mode: 'off' });
    } finally {
      await off.stop();
    }
  });
});
