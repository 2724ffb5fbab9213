/** Real git repositories for the workspace tests: `git` in a directory, a repository made. */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** A repository with one commit (README), its user set locally, in a fresh `dir()`. */
export function makeRepo(dir: () => string): string {
  const repo = join(dir(), 'repo');
  mkdirSync(repo);
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'config', 'user.name', 'Test');
  git(repo, 'config', 'user.email', 'test@example.invalid');
  writeFileSync(join(repo, 'README'), 'hello\n');
  git(repo, 'add', 'README');
  git(repo, 'commit', '-q', '-m', 'first');
  return repo;
}
