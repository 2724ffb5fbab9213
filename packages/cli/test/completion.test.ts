/** `svc completion bash|zsh|fish`: scripts written from the command tree, run in a real bash. */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { inProcessSvc } from './support.ts';

const home = mkdtempSync(join(tmpdir(), 'svc-cli-comp-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));
const svc = inProcessSvc(() => home);

/** What bash completes for the words typed so far (the last one being completed). */
async function complete(script: string, words: string[]): Promise<string[]> {
  const file = join(home, 'svc.bash');
  writeFileSync(file, script);
  const words_ = words.map((w) => `'${w}'`).join(' ');
  const program = `source '${file}'; COMP_WORDS=(svc ${words_}); COMP_CWORD=${words.length}; _svc; printf '%s\\n' "\${COMPREPLY[@]}"`;
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['--norc', '--noprofile', '-c', program], { stdio: 'pipe' });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c;
    });
    child.stderr.on('data', (c: Buffer) => {
      err += c;
    });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(out.split('\n').filter((l) => l !== '')) : reject(new Error(err)),
    );
  });
}

describe('svc completion', () => {
  it('bash completes commands, subcommands, aliases and options at any depth', async () => {
    const res = await svc('completion', 'bash');
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain('complete -o default -F _svc svc');
    expect(await complete(res.stdout, ['no'])).toEqual(['node']);
    expect(await complete(res.stdout, ['node', 'cr'])).toEqual(['create']);
    expect(await complete(res.stdout, ['node', 'li'])).toEqual(['list']);
    expect(await complete(res.stdout, ['node', 'worktree', ''])).toEqual(
      expect.arrayContaining(['close', 'abandon', '--help']),
    );
    expect(await complete(res.stdout, ['node', 'create', '--ti'])).toEqual([
      '--title',
      '--timeout',
    ]);
    // Words that are values, not commands, do not lose the place.
    expect(await complete(res.stdout, ['--home', '/tmp/x', 'events', '--t'])).toEqual(['--tail']);
    expect(await complete(res.stdout, ['events', '--j'])).toEqual(['--json', '--jq']);
  });

  it('zsh loads the bash script through bashcompinit; fish gets complete lines per command', async () => {
    const zsh = await svc('completion', 'zsh');
    expect(zsh.stdout).toMatch(/^#compdef svc\n/);
    expect(zsh.stdout).toContain('autoload -U +X bashcompinit && bashcompinit');
    const fish = await svc('completion', 'fish');
    expect(fish.stdout).toContain('function __svc_path');
    expect(fish.stdout).toContain(
      `complete -c svc -n '__svc_at '\\''node'\\''' -a 'create' -d 'create a node with a task (queued until a broker takes it)'`,
    );
    expect(fish.stdout).toContain(`complete -c svc -n '__svc_at '\\''events'\\''' -l 'tail'`);
  });

  const has = (shell: string) => spawnSync('sh', ['-c', `command -v ${shell}`]).status === 0;

  it.skipIf(!has('fish'))('fish completes from its script, in a real fish', async () => {
    const file = join(home, 'svc.fish');
    writeFileSync(file, (await svc('completion', 'fish')).stdout);
    const run = (line: string) =>
      spawnSync('fish', ['--no-config', '-c', `source '${file}'; complete -C '${line}'`], {
        encoding: 'utf8',
      }).stdout.split('\n');
    expect(run('svc node cr')).toContain(
      'create\tcreate a node with a task (queued until a broker takes it)',
    );
    expect(run('svc events --ta')).toContain('--tail\tstart with the last N events');
  });

  it.skipIf(!has('zsh'))('zsh loads it under compinit and finds the subcommands', async () => {
    const file = join(home, '_svc');
    writeFileSync(file, (await svc('completion', 'zsh')).stdout);
    const program = `autoload -U compinit && compinit -u -D; source '${file}'; COMP_WORDS=(svc node worktree ''); COMP_CWORD=3; words=(svc node worktree ''); CURRENT=4; compgen -F _svc -- ''`;
    const run = spawnSync('zsh', ['-f', '-c', program], { cwd: home, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.stdout.split('\n')).toEqual(expect.arrayContaining(['close', 'abandon']));
  });

  it('an unknown shell is a usage error (exit 2)', async () => {
    const res = await svc('completion', 'powershell');
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/shell must be one of bash, zsh, fish; received 'powershell'/);
  });
});
