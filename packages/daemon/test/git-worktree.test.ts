/**
 * Git workspaces (docs/nodes.md "Workspaces") on real brokers and real git: a node given a
 * repository works in a `git worktree` of it on `svc/<node id>`; close keeps the branch, abandon
 * deletes it; what is refused at create is refused with nothing made.
 */
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { brokerLaunchSchema } from '@svc/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { worktreeMounts } from '../src/worktrees/git-worktree.ts';
import { createNode, isFinal, type NodeDto, ok, waitForNode } from './broker-fixtures.ts';
import { git, makeRepo } from './git-repo.ts';
import { envelope, json, scratchDirs, startTestDaemon, type TestDaemon } from './helpers.ts';
import { IDLE_BROKER } from './nodes-fixture.ts';

interface Workspace {
  repo: string;
  git_common_dir: string;
  branch: string;
  base: string | null;
}
type GitNode = NodeDto & { workspace: Workspace | null };

const scratch = scratchDirs('svcg-');
let t: TestDaemon;
beforeAll(async () => {
  t = await startTestDaemon();
});
afterAll(() => t.stop());

const branches = (repo: string) =>
  git(repo, 'branch', '--list', 'svc/*', '--format=%(refname:short)').split('\n').filter(Boolean);
const worktree = (id: string) => join(t.home, 'worktrees', id);
const post = (id: string, action: 'close' | 'abandon') =>
  t.call(`/v1/nodes/${id}/worktree/${action}`, { method: 'POST' });

/** A node on `repo` whose scripted model runs `commands` with bash, one call each, then submits. */
async function ranNode(
  repo: string,
  commands: string[] = [],
  extra: Record<string, unknown> = {},
): Promise<GitNode> {
  const node = await createNode(t.call, {
    task: 'work in the repository',
    workspace: { repo },
    model: {
      provider: 'scripted',
      model: 'replay',
      script: [
        ...commands.map((command) => ({ tool_calls: [{ name: 'bash', input: { command } }] })),
        { tool_calls: [{ name: 'submit', input: { summary: 'worked' } }] },
      ],
    },
    ...extra,
  });
  const done = await waitForNode(t.call, node.id, isFinal);
  expect(done.state).toBe('done');
  return done as GitNode;
}

const SUBMITS = {
  provider: 'scripted',
  model: 'replay',
  script: [{ tool_calls: [{ name: 'submit', input: { summary: 'done' } }] }],
};

const COMMIT =
  'echo made > made.txt && git add made.txt && git -c user.name=n -c user.email=n@x.invalid commit -q -m made';

describe('a node with a git workspace', () => {
  it('works in a git worktree of the repository on svc/<node id>', async () => {
    const repo = makeRepo(scratch);
    const node = await ranNode(repo, ['git rev-parse --abbrev-ref HEAD > /dev/null']);
    expect(node.workspace).toEqual({
      repo,
      git_common_dir: join(repo, '.git'),
      branch: `svc/${node.id}`,
      base: null,
    });
    const path = worktree(node.id);
    expect(git(path, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe(`svc/${node.id}`);
    expect(readFileSync(join(path, 'README'), 'utf8')).toBe('hello\n');
    expect(git(repo, 'worktree', 'list', '--porcelain')).toContain(`worktree ${path}\n`);
    // The repository's own checkout is untouched.
    expect(git(repo, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('main');
  });

  it('gives each node on one repository its own branch', async () => {
    const repo = makeRepo(scratch);
    const [a, b] = await Promise.all([ranNode(repo), ranNode(repo)]);
    expect(branches(repo).sort()).toEqual([`svc/${a!.id}`, `svc/${b!.id}`].sort());
    for (const node of [a!, b!]) {
      expect(git(worktree(node.id), 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe(
        `svc/${node.id}`,
      );
    }
  });

  it('close removes a clean worktree and keeps the branch with what the node committed', async () => {
    const repo = makeRepo(scratch);
    const node = await ranNode(repo, [COMMIT]);
    const res = await post(node.id, 'close');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      node_id: node.id,
      path: worktree(node.id),
      exists: false,
      removed: true,
      branch: { name: `svc/${node.id}`, repo, kept: true },
    });
    expect(existsSync(worktree(node.id))).toBe(false);
    expect(git(repo, 'worktree', 'list', '--porcelain')).not.toContain(worktree(node.id));
    expect(git(repo, 'show', `svc/${node.id}:made.txt`)).toBe('made\n');
    // Again: nothing left to remove; the branch is still there.
    const again = await post(node.id, 'close');
    expect(await again.json()).toMatchObject({ removed: false, branch: { kept: true } });
  });

  it('close refuses uncommitted changes (409); abandon removes the worktree and the branch', async () => {
    const repo = makeRepo(scratch);
    const node = await ranNode(repo, ['echo wip > wip.txt && echo changed >> README']);
    const refused = await post(node.id, 'close');
    expect(refused.status).toBe(409);
    const error = await envelope(refused);
    expect(error).toMatchObject({ code: 'invalid_state', field: 'id' });
    expect(error.message).toMatch(/2 uncommitted changes/);
    expect(readFileSync(join(worktree(node.id), 'wip.txt'), 'utf8')).toBe('wip\n');
    expect(branches(repo)).toEqual([`svc/${node.id}`]);

    const abandoned = await post(node.id, 'abandon');
    expect(abandoned.status).toBe(200);
    expect(await abandoned.json()).toEqual({
      node_id: node.id,
      path: worktree(node.id),
      exists: false,
      removed: true,
      branch: { name: `svc/${node.id}`, repo, kept: false },
    });
    expect(existsSync(worktree(node.id))).toBe(false);
    expect(branches(repo)).toEqual([]);
    expect(git(repo, 'worktree', 'list', '--porcelain')).not.toContain(worktree(node.id));
  });

  it('a worktree whose .git the node rewrote: close is 409, abandon still removes it', async () => {
    const repo = makeRepo(scratch);
    const node = await ranNode(repo, ['echo "gitdir: /nowhere" > .git']);
    const refused = await post(node.id, 'close');
    expect(refused.status).toBe(409);
    expect(await envelope(refused)).toMatchObject({ code: 'invalid_state', field: 'id' });
    expect(existsSync(worktree(node.id))).toBe(true);
    const abandoned = await post(node.id, 'abandon');
    expect(await ok(abandoned)).toMatchObject({ removed: true, branch: { kept: false } });
    expect(existsSync(worktree(node.id))).toBe(false);
    expect(branches(repo)).toEqual([]);
    expect(git(repo, 'worktree', 'list', '--porcelain')).not.toContain(worktree(node.id));
  });

  it("abandon of a link put in the worktree's place never removes where it points", async () => {
    const repo = makeRepo(scratch);
    const [a, b] = await Promise.all([ranNode(repo), ranNode(repo)]);
    rmSync(worktree(a!.id), { recursive: true });
    symlinkSync(worktree(b!.id), worktree(a!.id));
    expect((await post(a!.id, 'close')).status).toBe(409); // a link is no worktree git made
    expect((await post(a!.id, 'abandon')).status).toBe(200);
    expect(existsSync(worktree(a!.id))).toBe(false);
    expect(readFileSync(join(worktree(b!.id), 'README'), 'utf8')).toBe('hello\n');
    expect(branches(repo)).toEqual([`svc/${b!.id}`]);
  });

  it('a recycled node comes back on its kept branch after a close', async () => {
    const repo = makeRepo(scratch);
    const node = await ranNode(repo, [COMMIT]);
    expect((await post(node.id, 'close')).status).toBe(200);
    const recycled = await t.call(`/v1/nodes/${node.id}/recycle`, json({ task: 'more' }));
    expect(recycled.status).toBe(200);
    // Its script is spent: the relaunch fails the node, after making its worktree again.
    await waitForNode(t.call, node.id, (n) => isFinal(n) && n.state !== 'done');
    expect(readFileSync(join(worktree(node.id), 'made.txt'), 'utf8')).toBe('made\n');
    expect(git(worktree(node.id), 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe(
      `svc/${node.id}`,
    );
  });

  it('a fork works on a branch of its own, started from the source branch head', async () => {
    const repo = makeRepo(scratch);
    const source = await ranNode(repo, [COMMIT]);
    const res = await t.call(`/v1/nodes/${source.id}/fork`, json({ through_turn: 0 }));
    const fork = await ok<GitNode>(res);
    expect(fork.workspace).toEqual({
      repo,
      git_common_dir: join(repo, '.git'),
      branch: `svc/${fork.id}`,
      base: `svc/${source.id}`,
    });
    await waitForNode(t.call, fork.id, isFinal);
    expect(readFileSync(join(worktree(fork.id), 'made.txt'), 'utf8')).toBe('made\n');
    git(repo, 'merge-base', '--is-ancestor', `svc/${source.id}`, `svc/${fork.id}`);
  });

  it('a node whose worktree git cannot make fails with worktree_failed', async () => {
    const repo = makeRepo(scratch);
    const source = await ranNode(repo);
    expect((await post(source.id, 'abandon')).status).toBe(200);
    // Its base, the source's branch, is gone with the abandon.
    const fork = await ok<GitNode>(await t.call(`/v1/nodes/${source.id}/fork`, json({})));
    const failed = await waitForNode(t.call, fork.id, isFinal);
    expect(failed.state).toBe('failed');
    expect(failed.outcome?.error).toMatchObject({ code: 'worktree_failed' });
    expect(failed.outcome?.error?.message).toMatch(new RegExp(`svc/${fork.id}`));
    expect(existsSync(worktree(fork.id))).toBe(false);
  });

  it('a common git directory replaced by a link since the create fails the launch', async () => {
    const repo = makeRepo(scratch);
    const source = await ranNode(repo);
    renameSync(join(repo, '.git'), join(repo, 'git-real'));
    symlinkSync(join(repo, 'git-real'), join(repo, '.git'));
    const fork = await ok<GitNode>(await t.call(`/v1/nodes/${source.id}/fork`, json({})));
    const failed = await waitForNode(t.call, fork.id, isFinal);
    expect(failed.outcome?.error).toMatchObject({ code: 'worktree_failed' });
    expect(failed.outcome?.error?.message).toMatch(/no longer at/);
    expect(existsSync(worktree(fork.id))).toBe(false);
  });

  it('starts from a base when one is given', async () => {
    const repo = makeRepo(scratch);
    git(repo, 'checkout', '-q', '-b', 'feature');
    writeFileSync(join(repo, 'feature.txt'), 'f\n');
    git(repo, 'add', 'feature.txt');
    git(repo, 'commit', '-q', '-m', 'feature');
    git(repo, 'checkout', '-q', 'main');
    const node = await ranNode(repo, [], { workspace: { repo, base: 'feature' } });
    expect(node.workspace?.base).toBe('feature');
    expect(existsSync(join(worktree(node.id), 'feature.txt'))).toBe(true);
  });

  it('a run started on a repository, once deleted, leaves neither worktree nor branch', async () => {
    const repo = makeRepo(scratch);
    const run = await ok<{ id: string; node_id: string }>(
      await t.call('/v1/runs', json({ task: 'x', workspace: { repo }, model: SUBMITS })),
    );
    const node = (await waitForNode(t.call, run.node_id, isFinal)) as GitNode;
    expect(node.workspace?.branch).toBe(`svc/${run.node_id}`);
    expect(branches(repo)).toEqual([`svc/${run.node_id}`]);
    expect((await t.call(`/v1/runs/${run.id}`, { method: 'DELETE' })).status).toBe(200);
    expect(existsSync(worktree(run.node_id))).toBe(false);
    expect(branches(repo)).toEqual([]);
  });

  it("runs none of the repository's hooks or filters in the daemon", async () => {
    const repo = makeRepo(scratch);
    const marks = scratch();
    writeFileSync(join(repo, '.gitattributes'), '*.txt filter=mark\n');
    writeFileSync(join(repo, 'a.txt'), 'a\n');
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'filtered');
    git(repo, 'config', 'filter.mark.smudge', `touch ${marks}/smudged; cat`);
    git(repo, 'config', 'filter.mark.clean', `touch ${marks}/cleaned; cat`);
    git(repo, 'config', 'filter.mark.required', 'true');
    const hook = join(repo, '.git', 'hooks', 'post-checkout');
    writeFileSync(hook, `#!/bin/sh\ntouch ${marks}/hooked\n`);
    chmodSync(hook, 0o755);
    const node = await ranNode(repo);
    expect(readFileSync(join(worktree(node.id), 'a.txt'), 'utf8')).toBe('a\n');
    expect((await post(node.id, 'close')).status).toBe(200);
    expect(existsSync(join(marks, 'hooked'))).toBe(false);
    expect(existsSync(join(marks, 'smudged'))).toBe(false);
    expect(existsSync(join(marks, 'cleaned'))).toBe(false);
  });
});

describe('what a create is refused', () => {
  const create = (body: Record<string, unknown>, token?: string) =>
    t.call('/v1/nodes', {
      ...json({ task: 'x', model: SUBMITS, ...body }),
      ...(token !== undefined && { token }),
    });

  async function refused(res: Awaited<ReturnType<typeof create>>, status: number) {
    expect(res.status).toBe(status);
    return envelope(res);
  }

  it('a repository outside the creator’s read-write files scopes: 403, nothing made', async () => {
    const repo = makeRepo(scratch);
    const before = await t.call('/v1/nodes?limit=200').then((r) => ok<{ data: unknown[] }>(r));
    const reader = await t.appToken(['svc:llm', 'svc:act', `svc:files:read:user:${repo}`]);
    const elsewhere = await t.appToken(['svc:llm', 'svc:act', `svc:files:rw:user:${scratch()}`]);
    for (const { token } of [reader, elsewhere]) {
      const error = await refused(await create({ workspace: { repo } }, token), 403);
      expect(error).toMatchObject({ code: 'scope_missing', field: `svc:files:rw:user:${repo}` });
    }
    const after = await t.call('/v1/nodes?limit=200').then((r) => ok<{ data: unknown[] }>(r));
    expect(after.data.length).toBe(before.data.length);
    expect(branches(repo)).toEqual([]);
    // The app form counts for the creator's own app only (test-app's, as appToken makes).
    const otherApp = await t.appToken(['svc:llm', 'svc:act', `svc:files:rw:app:other-app:${repo}`]);
    expect((await create({ workspace: { repo } }, otherApp.token)).status).toBe(403);
    const ownApp = await t.appToken(['svc:llm', 'svc:act', `svc:files:rw:app:test-app:${repo}`]);
    expect((await create({ workspace: { repo } }, ownApp.token)).status).toBe(200);
    // A scope over the repository (a parent of it) is enough.
    const { token } = await t.appToken([
      'svc:llm',
      'svc:act',
      `svc:files:rw:user:${dirname(repo)}`,
    ]);
    expect((await create({ workspace: { repo } }, token)).status).toBe(200);
  });

  it('a directory that is no git work tree, or no directory: 422 naming workspace.repo', async () => {
    const plain = scratch();
    const bare = join(scratch(), 'bare.git');
    git(plain, 'init', '-q', '--bare', bare);
    const empty = join(scratch(), 'empty');
    mkdirSync(empty);
    git(empty, 'init', '-q');
    for (const repo of [plain, join(plain, 'missing'), bare, empty]) {
      const error = await refused(await create({ workspace: { repo } }), 422);
      expect(error).toMatchObject({ code: 'validation_failed', field: 'workspace.repo' });
    }
    // svc's own home is never a workspace.
    const inHome = await refused(await create({ workspace: { repo: t.home } }), 422);
    expect(inHome.message).toMatch(/svc's own home/);
  });

  it('a relative path, or a base naming no commit: 422', async () => {
    const repo = makeRepo(scratch);
    const relative = await refused(await create({ workspace: { repo: 'repo' } }), 422);
    expect(relative).toMatchObject({ code: 'validation_failed', field: 'workspace.repo' });
    for (const base of ['nope', '--upload-pack=x', 'main..main']) {
      const error = await refused(await create({ workspace: { repo, base } }), 422);
      expect(error).toMatchObject({ code: 'validation_failed', field: 'workspace.base' });
    }
  });
});

describe('a profile workspace', () => {
  it("is its nodes' default, checked against each creator", async () => {
    const repo = makeRepo(scratch);
    const put = await t.call('/v1/profiles/git-prof', {
      ...json({ workspace: { repo } }),
      method: 'PUT',
    });
    expect(await ok(put)).toMatchObject({ workspace: { repo, base: null } });
    const node = await ranNode(repo, [], { workspace: undefined, profile: 'git-prof' });
    expect(node.workspace?.branch).toBe(`svc/${node.id}`);
    expect(branches(repo)).toEqual([`svc/${node.id}`]);
    const { token } = await t.appToken(['svc:llm', 'svc:act']);
    const res = await t.call('/v1/nodes', {
      ...json({ task: 'x', profile: 'git-prof', model: SUBMITS }),
      token,
    });
    expect(res.status).toBe(403);
    expect((await envelope(res)).message).toMatch(/profile 'git-prof'/);
    const bad = await t.call('/v1/profiles/git-prof', {
      ...json({ workspace: { repo: 'relative' } }),
      method: 'PUT',
    });
    expect(bad.status).toBe(422);
  });
});

describe('worktreeMounts', () => {
  it('is the recorded common git directory, read-write; nothing for a plain directory', () => {
    expect(worktreeMounts({ workspace: null })).toEqual([]);
    const workspace = { repo: '/r', git_common_dir: '/r/.git', branch: 'svc/x', base: null };
    expect(worktreeMounts({ workspace })).toEqual([{ path: '/r/.git', writable: true }]);
    // As the broker has it: its launch message.
    const launch = brokerLaunchSchema.parse({
      node_id: 'nd_01JABCDEFGHJKMNPQRSTVWXYZ0',
      token: 'svc_node_x',
      socket_path: '/s.sock',
      cwd: '/h/worktrees/nd_01JABCDEFGHJKMNPQRSTVWXYZ0',
      workspace,
      model: { provider: 'scripted', model: 'r' },
      env: {},
    });
    expect(worktreeMounts(launch)).toEqual([{ path: '/r/.git', writable: true }]);
    expect(worktreeMounts({ ...launch, workspace: undefined })).toEqual([]);
  });
});

describe('the launch message', () => {
  let idle: TestDaemon;
  beforeAll(async () => {
    idle = await startTestDaemon({ brokers: { entry: IDLE_BROKER } });
  });
  afterAll(() => idle.stop());

  it("names the node's git worktree as cwd and its workspace, for the sandbox", async () => {
    const repo = makeRepo(scratch);
    const node = (await createNode(idle.call, {
      task: 'x',
      workspace: { repo },
      model: SUBMITS,
    })) as GitNode;
    const cwd = join(idle.home, 'worktrees', node.id);
    const file = join(cwd, 'launch.json');
    await waitUntil(() => existsSync(file));
    const launch = JSON.parse(readFileSync(file, 'utf8')) as { cwd: string; workspace: unknown };
    expect(launch.cwd).toBe(cwd);
    expect(launch.workspace).toEqual(node.workspace);
    expect(git(cwd, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe(`svc/${node.id}`);
    expect((await idle.call(`/v1/nodes/${node.id}/cancel`, json({}))).status).toBe(200);
  });
});

/** Polls `check` every 25 ms, for at most 15 s. */
async function waitUntil(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('gave up waiting');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
