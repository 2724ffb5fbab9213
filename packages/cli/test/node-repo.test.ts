/** `svc node create --repo DIR` (and `svc run start --repo`): a node in a git worktree. */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { useIdleDaemon } from './idle-daemon.ts';

const idle = useIdleDaemon('svc-cli-r-');
const scratch = mkdtempSync(join(tmpdir(), 'svc-cli-repo-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function makeRepo(): string {
  const repo = join(scratch, 'repo');
  mkdirSync(repo);
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, stdio: 'ignore' });
  git('init', '-q');
  git('config', 'user.name', 'Test');
  git('config', 'user.email', 'test@example.invalid');
  writeFileSync(join(repo, 'README'), 'hello\n');
  git('add', 'README');
  git('commit', '-q', '-m', 'first');
  return repo;
}

describe('--repo', () => {
  it("names the node's git workspace; a directory that is none is the daemon's 422", async () => {
    const repo = makeRepo();
    const node = (await idle.createNode(['fix', 'it'], '--repo', repo)) as {
      id: string;
      workspace?: { repo: string; branch: string } | null;
    };
    expect(node.workspace).toMatchObject({ repo, branch: `svc/${node.id}` });
    const plain = await idle.svc(
      'node',
      'create',
      'x',
      '--model',
      'scripted/replay',
      '--script',
      idle.script(),
      '--repo',
      scratch,
    );
    expect(plain.code).not.toBe(0);
    expect(plain.stderr).toMatch(/not in a git work tree/);
  });
});
