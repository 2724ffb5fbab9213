/**
 * The worktrees of one repository are added (and abandoned) one at a time: `git worktree add`
 * makes its entry before marking it "initializing", and other git work on the repository's
 * entries in between could take it for stale. A `git` on PATH that logs each call's start and end
 * (and takes a while) shows whether two calls overlap; run by `bareGit`, as this is about their
 * order, not their confinement (`git-confined.test.ts`).
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bareGit } from '../src/worktrees/git.ts';
import { abandonGitWorktree, addGitWorktree } from '../src/worktrees/git-worktree.ts';
import { scratchDirs } from './helpers.ts';

const scratch = scratchDirs('svcd-gwserial-');
const PATH = process.env.PATH;
let log = '';
beforeAll(() => {
  const bin = scratch();
  log = join(bin, 'calls.log');
  const real = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  writeFileSync(
    join(bin, 'git'),
    `#!/bin/sh\necho S >> '${log}'\nsleep 0.05\n'${real}' "$@"\nrc=$?\necho E >> '${log}'\nexit $rc\n`,
  );
  chmodSync(join(bin, 'git'), 0o755);
  process.env.PATH = `${bin}:${PATH}`;
});
afterAll(() => {
  process.env.PATH = PATH;
});

it('adds the worktrees of one repository one at a time, each made', async () => {
  const dir = scratch();
  const repo = join(dir, 'repo');
  const run = (...args: string[]) =>
    execFileSync('git', ['-C', repo, ...args], { stdio: 'ignore' });
  execFileSync('git', ['init', '-q', repo]);
  writeFileSync(join(repo, 'README'), 'hello\n');
  run('add', 'README');
  run('-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-qm', 'first');
  const workspace = (id: string) => ({
    repo,
    git_common_dir: join(repo, '.git'),
    branch: `svc/${id}`,
    base: null,
  });
  const ids = ['a', 'b', 'c'];
  await addGitWorktree(bareGit, workspace('gone'), join(dir, 'wt', 'gone'));
  writeFileSync(log, '');
  // Three adds at once, and an abandon (which prunes) while they run.
  const adds = ids.map((id) => addGitWorktree(bareGit, workspace(id), join(dir, 'wt', id)));
  // Once the first add's git runs: an abandon run now would run git beside it.
  while (!readFileSync(log, 'utf8').includes('S')) await new Promise((r) => setTimeout(r, 5));
  const abandoned = await abandonGitWorktree(bareGit, workspace('gone'), join(dir, 'wt', 'gone'));
  await Promise.all(adds);
  expect(abandoned).toMatchObject({ removed: true, branch: { kept: false } });
  expect(existsSync(join(dir, 'wt', 'gone'))).toBe(false);
  for (const id of ids) expect(existsSync(join(dir, 'wt', id, 'README'))).toBe(true);
  let running = 0;
  let most = 0;
  const marks = readFileSync(log, 'utf8').split('\n').filter(Boolean);
  for (const mark of marks) {
    running += mark === 'S' ? 1 : -1;
    most = Math.max(most, running);
  }
  expect(marks.length).toBeGreaterThanOrEqual(ids.length * 2 * 2);
  expect(most).toBe(1);

  // A failed add says git's complaint, not the "Preparing worktree" line printed before it.
  const again = addGitWorktree(
    bareGit,
    { ...workspace('a'), branch: 'svc/a' },
    join(dir, 'wt', 'a2'),
  );
  await expect(again).rejects.toThrow(/: fatal: .*svc\/a/);
});
