/**
 * The daemon's git calls on a node's repository run confined (`src/bash/git-runner.ts`): a
 * filter the repository's config names (which the node, or an app with a files scope on the
 * repository, may write) runs in a sandbox that shows only the common git directory and the
 * node's worktree. Each filter below is one the daemon's listing of filters cannot see, so it
 * does run: each test checks that it ran, then that it reached nothing of the person's.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createNode, isFinal, ok, waitForNode } from './broker-fixtures.ts';
import { git, makeRepo } from './git-repo.ts';
import { json, scratchDirs, startTestDaemon, type TestDaemon } from './helpers.ts';

const scratch = scratchDirs('svcgc-');
let t: TestDaemon;
beforeAll(async () => {
  t = await startTestDaemon();
});
afterAll(() => t.stop());

const SUBMITS = {
  provider: 'scripted',
  model: 'replay',
  script: [{ tool_calls: [{ name: 'submit', input: { summary: 'done' } }] }],
};

/** A filter command: marks `ran` in `dir`, copies the owner token to `dir/stolen` if it can. */
function thief(dir: string): string {
  return `sh -c 'echo ran > ${dir}/ran; cat ${t.home}/owner.token > ${dir}/stolen 2>/dev/null; cat'`;
}

it("a smudge filter included only on the node's branch runs at checkout, reaching no secret", async () => {
  const repo = makeRepo(scratch);
  const gitDir = join(repo, '.git');
  // An app with read-write on the repository writes its config through the files routes.
  const app = await t.appToken(['svc:llm', 'svc:act', `svc:files:rw:user:${repo}`]);
  const write = async (path: string, content: string) =>
    expect(
      (await t.call('/v1/files/write', { ...json({ path, content }), token: app.token })).status,
    ).toBe(200);
  await write(join(gitDir, 'info', 'attributes'), '* filter=evil\n');
  await write(join(gitDir, 'evil.cfg'), `[filter "evil"]\n\tsmudge = "${thief(gitDir)}"\n`);
  const config = readFileSync(join(gitDir, 'config'), 'utf8');
  await write(
    join(gitDir, 'config'),
    `${config}[includeIf "onbranch:svc/**"]\n\tpath = evil.cfg\n`,
  );

  const node = await ok<{ id: string }>(
    await t.call('/v1/nodes', {
      ...json({ task: 'x', model: SUBMITS, workspace: { repo } }),
      token: app.token,
    }),
  );
  expect((await waitForNode(t.call, node.id, isFinal)).state).toBe('done');
  expect(readFileSync(join(gitDir, 'ran'), 'utf8')).toBe('ran\n');
  expect(
    existsSync(join(gitDir, 'stolen')) ? readFileSync(join(gitDir, 'stolen'), 'utf8') : '',
  ).toBe('');
  expect(readFileSync(join(t.home, 'worktrees', node.id, 'README'), 'utf8')).toBe('hello\n');
});

it("a clean filter of a repository nested in the worktree runs at close's status, reaching no secret", async () => {
  const repo = makeRepo(scratch);
  const node = await createNode(t.call, { task: 'x', model: SUBMITS, workspace: { repo } });
  expect((await waitForNode(t.call, node.id, isFinal)).state).toBe('done');
  const tree = join(t.home, 'worktrees', node.id);
  // What the node could have left: a repository of its own, committed as a gitlink, whose own
  // config names a clean filter (git's status of the outer tree runs a status in the inner).
  const sub = join(tree, 'sub');
  mkdirSync(sub);
  git(sub, 'init', '-q', '-b', 'main');
  writeFileSync(join(sub, '.gitattributes'), '*.txt filter=evil\n');
  writeFileSync(join(sub, 'a.txt'), 'a\n');
  git(sub, 'add', '.');
  git(sub, '-c', 'user.name=n', '-c', 'user.email=n@x.invalid', 'commit', '-q', '-m', 'inner');
  git(sub, 'config', 'filter.evil.clean', thief(tree));
  git(tree, 'add', 'sub');
  git(tree, '-c', 'user.name=n', '-c', 'user.email=n@x.invalid', 'commit', '-q', '-m', 'gitlink');
  // Changed after its index entry: the inner status must run the file through its filter.
  writeFileSync(join(sub, 'a.txt'), 'b\n');

  const closed = await t.call(`/v1/nodes/${node.id}/worktree/close`, { method: 'POST' });
  expect(closed.status).toBe(409); // the inner change shows as the outer's
  expect(readFileSync(join(tree, 'ran'), 'utf8')).toBe('ran\n');
  expect(existsSync(join(tree, 'stolen')) ? readFileSync(join(tree, 'stolen'), 'utf8') : '').toBe(
    '',
  );
});

it("keeps the person's own worktrees of the repository through a node's add and abandon", async () => {
  const repo = makeRepo(scratch);
  const mine = join(scratch(), 'feature');
  git(repo, 'worktree', 'add', '-q', '-b', 'feature', mine);
  const node = await createNode(t.call, { task: 'x', model: SUBMITS, workspace: { repo } });
  expect((await waitForNode(t.call, node.id, isFinal)).state).toBe('done');
  expect((await t.call(`/v1/nodes/${node.id}/worktree/abandon`, { method: 'POST' })).status).toBe(
    200,
  );
  // git's sandbox shows none of the repository's other worktrees: nothing may take them for gone.
  const listed = git(repo, 'worktree', 'list', '--porcelain');
  expect(listed).toContain(`worktree ${mine}\n`);
  expect(listed).not.toContain(node.id);
  expect(git(mine, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('feature');
});
