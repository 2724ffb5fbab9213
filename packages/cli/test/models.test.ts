/** `svc models …` and `svc profile …` against a real daemon; secrets go in on stdin only. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DaemonHandle, startDaemon } from '@svc/daemon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inProcessSvc, spawnSvc } from './support.ts';

const KEY = 'sk-ant-cli-secret-0123456789abcdef';
let home: string;
let daemon: DaemonHandle;

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'svc-cli-m-'));
  daemon = await startDaemon({ home, logLevel: 'info' });
});
afterAll(async () => {
  await daemon.close();
  rmSync(home, { recursive: true, force: true });
});

const svc = inProcessSvc(() => home);

/** `svc …args` as a child process with `input` on its stdin. */
const svcWithStdin = (input: string, args: string[], env: Record<string, string> = {}) =>
  spawnSvc(home, args, { input, env });

describe('svc models', () => {
  it('install reads the key from stdin and never prints it', async () => {
    const result = await svcWithStdin(`${KEY}\n`, ['models', 'install', 'anthropic']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(/stored \(never shown\)/);
    expect(result.stdout).not.toContain(KEY.slice(0, 8));

    const list = await svc('models', 'list');
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/anthropic\s+yes\s+stored/);
    expect(list.stdout).toMatch(/scripted\s+yes/);
    expect(list.stdout).not.toContain(KEY.slice(0, 8));
    const json = JSON.parse((await svc('models', 'list', '--json')).stdout) as {
      data: { provider: string; has_key: boolean; ready: boolean }[];
    };
    expect(json.data.find((p) => p.provider === 'anthropic')).toMatchObject({
      has_key: true,
      ready: true,
    });
    // The daemon writes its log in batches, within 100 ms: read it once the install's request
    // line is in (a write, logged at info), so the key would have reached it too.
    const log = join(home, 'logs', 'daemon.log');
    const deadline = Date.now() + 5_000;
    while (!readFileSync(log, 'utf8').includes('/v1/model-auth/anthropic')) {
      expect(Date.now()).toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(readFileSync(log, 'utf8')).not.toContain(KEY);
  });

  it('--key-env names a variable; a key is never a flag value', async () => {
    const result = await svcWithStdin(
      '',
      ['models', 'install', 'openai', '--key-env', 'MY_KEY', '--json'],
      {
        MY_KEY: 'sk-from-env-0123456789',
      },
    );
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ provider: 'openai', has_key: true });
    const unset = await svcWithStdin('', ['models', 'install', 'openai', '--key-env', 'NOPE_X']);
    expect(unset).toMatchObject({ code: 2 });
    expect(unset.stderr).toMatch(/^svc: --key-env: the variable NOPE_X is not set/);
    const flag = await svc('models', 'install', 'openai', '--key', 'sk-x');
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/unknown option '--key'/);
  });

  it('without a key says how to give one; openai-compatible needs only --base-url', async () => {
    const none = await svcWithStdin('', ['models', 'install', 'anthropic']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/pipe it on stdin/);
    const local = await svcWithStdin('', [
      'models',
      'install',
      'openai-compatible',
      '--base-url',
      'http://127.0.0.1:11434/v1',
    ]);
    expect(local.code).toBe(0);
    expect(local.stdout).toMatch(/http:\/\/127\.0\.0\.1:11434\/v1/);
    const scripted = await svc('models', 'install', 'scripted');
    expect(scripted.code).toBe(2);
    expect(scripted.stderr).toMatch(/scripted takes no credentials/);
  });

  it('remove, then remove again fails with one line', async () => {
    expect((await svc('models', 'remove', 'openai-compatible')).code).toBe(0);
    const again = await svc('models', 'remove', 'openai-compatible');
    expect(again.code).toBe(1);
    expect(again.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(again.stderr).toMatch(/no credentials are installed for openai-compatible/);
  });

  it('config set changes what it is given and keeps the rest', async () => {
    const first = await svc(
      'models',
      'config',
      'set',
      '--default',
      'anthropic/claude-sonnet-4-5',
      '--profile',
      'local=openai-compatible/meta-llama/Llama-3.1-8B',
    );
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/default: anthropic\/claude-sonnet-4-5/);
    expect(first.stdout).toMatch(/local: openai-compatible\/meta-llama\/Llama-3\.1-8B/);
    const second = await svc(
      'models',
      'config',
      'set',
      '--profile',
      'fast=openai/gpt-5-mini',
      '--json',
    );
    expect(JSON.parse(second.stdout)).toMatchObject({
      default: { provider: 'anthropic', model: 'claude-sonnet-4-5' },
      profiles: {
        local: { provider: 'openai-compatible', model: 'meta-llama/Llama-3.1-8B' },
        fast: { provider: 'openai', model: 'gpt-5-mini' },
      },
    });
    const third = await svc('models', 'config', 'set', '--no-default', '--unset-profile', 'local');
    expect(third.stdout).toMatch(/default: none/);
    expect(third.stdout).not.toMatch(/local:/);
    const bad = await svc('models', 'config', 'set', '--default', 'gpt-5');
    expect(bad).toMatchObject({ code: 2 });
    expect(bad.stderr).toMatch(/--default must be PROVIDER\/MODEL/);
    expect((await svc('models', 'config', 'set')).stderr).toMatch(/nothing to set/);
    // Both, in either order: which was meant is unknown; nothing is sent.
    for (const args of [
      ['--default', 'scripted/x', '--no-default'],
      ['--no-default', '--default', 'scripted/x'],
    ]) {
      const both = await svc('models', 'config', 'set', ...args);
      expect(both).toMatchObject({ code: 2 });
      expect(both.stderr).toMatch(/--default or --no-default, not both/);
    }
    expect((await svc('models', 'config', 'show')).stdout).toMatch(/default: none/);
  });
});

describe('svc profile', () => {
  it('ensure, show, ls', async () => {
    const made = await svc(
      'profile',
      'ensure',
      'coder',
      '--model',
      'anthropic/claude-sonnet-4-5',
      '--tools',
      'bash,submit',
      '--scopes',
      'svc:llm,svc:act',
      '--max-turns',
      '30',
      '--json',
    );
    expect(made.code).toBe(0);
    expect(JSON.parse(made.stdout)).toMatchObject({
      name: 'coder',
      model: { provider: 'anthropic', model: 'claude-sonnet-4-5' },
      tools: ['bash', 'submit'],
      scopes: ['svc:llm', 'svc:act'],
      budgets: { max_turns: 30 },
    });
    const shown = await svc('profile', 'show', 'coder');
    expect(shown.stdout).toMatch(/model\s+anthropic\/claude-sonnet-4-5/);
    expect(shown.stdout).toMatch(/budgets\s+turns 30, tokens none, usd none/);
    const listed = await svc('profile', 'ls');
    expect(listed.stdout).toMatch(/coder\s+anthropic\/claude-sonnet-4-5/);
    expect(listed.stdout).toMatch(/default\s+default/);
    for (const [args, message] of [
      [['profile', 'ensure', 'Bad'], /profile name must be/],
      [
        ['profile', 'ensure', 'x', '--max-turns', '1.5'],
        /--max-turns must be a positive whole number/,
      ],
      [['profile', 'ensure', 'x', '--scopes', 'act'], /--scopes: .*svc:act/],
      [['profile', 'env', 'set', 'coder'], /required option '--name/],
    ] as const) {
      const result = await svc(...args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(message);
    }
    expect((await svc('profile', 'show', 'ghost')).stderr).toMatch(/no profile 'ghost'/);
  });

  it('ensure --script makes a scripted profile a scripted root can spawn children with', async () => {
    const worker = join(home, 'worker.json');
    writeFileSync(
      worker,
      JSON.stringify([{ tool_calls: [{ name: 'submit', input: { result: { counted: 3 } } }] }]),
    );
    const made = await svc(
      'profile',
      'ensure',
      'worker',
      '--model',
      'scripted/worker',
      '--script',
      worker,
      '--json',
    );
    expect(made.code, made.stderr).toBe(0);
    expect(JSON.parse(made.stdout)).toMatchObject({
      model: { provider: 'scripted', model: 'worker' },
      scripted_turns: 1,
    });
    expect((await svc('profile', 'show', 'worker')).stdout).toMatch(
      /model\s+scripted\/worker \(1 scripted turns\)/,
    );
    const root = join(home, 'root.json');
    writeFileSync(
      root,
      JSON.stringify([
        { tool_calls: [{ name: 'spawn', input: { task: 'count', profile: 'worker' } }] },
        { tool_calls: [{ name: 'wait', input: {} }] },
        { tool_calls: [{ name: 'submit', input: { summary: 'delegated' } }] },
      ]),
    );
    const args = ['node', 'create', 'delegate', '--model', 'scripted/root', '--script', root];
    const created = await svc(...args, '--json');
    expect(created.code, created.stderr).toBe(0);
    const id = (JSON.parse(created.stdout) as { id: string }).id;
    const waited = await svc('node', 'wait', id, '--timeout', '60s', '--json');
    expect(waited.code, waited.stderr).toBe(0);
    const children = await svc('node', 'ls', '--parent', id, '--json');
    expect(JSON.parse(children.stdout).data).toEqual([
      expect.objectContaining({
        profile: 'worker',
        state: 'done',
        outcome: expect.objectContaining({ result: { counted: 3 } }),
      }),
    ]);
    for (const [extra, message] of [
      [['--script', worker], /--script needs --model scripted/],
      [['--model', 'scripted/w', '--script', join(home, 'none.json')], /--script: cannot read/],
      [['--model', 'scripted/w', '--script', root, '--max-turns', '0'], /--max-turns/],
    ] as const) {
      const refused = await svc('profile', 'ensure', 'w', ...extra);
      expect(refused.code, extra.join(' ')).toBe(2);
      expect(refused.stderr).toMatch(message);
    }
  });

  it('env set reads the value from stdin, never prints it; env rm removes it', async () => {
    const value = 'ghp_cli_env_value_0123456789';
    const set = await svcWithStdin(value, [
      'profile',
      'env',
      'set',
      'coder',
      '--name',
      'GITHUB_TOKEN',
    ]);
    expect(set).toMatchObject({ code: 0, stderr: '' });
    expect(set.stdout).toMatch(/stored GITHUB_TOKEN for profile coder/);
    expect(set.stdout).not.toContain(value);
    const shown = await svc('profile', 'show', 'coder', '--json');
    expect(shown.stdout).not.toContain(value);
    expect(JSON.parse(shown.stdout).env).toEqual([
      { name: 'GITHUB_TOKEN', updated_at: expect.any(String) },
    ]);
    const empty = await svcWithStdin('', ['profile', 'env', 'set', 'coder', '--name', 'X']);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/pipe the value of X on stdin/);
    // The daemon's limits, checked before sending; a trailing newline does not count.
    const longest = 'v'.repeat(32_768);
    const setL = ['profile', 'env', 'set', 'coder', '--name', 'L'];
    const fits = await svcWithStdin(`${longest}\n`, setL);
    expect(fits.code, fits.stderr).toBe(0);
    const over = await svcWithStdin(`${longest}v`, setL);
    expect(over.code).toBe(2);
    expect(over.stderr).toBe("svc: stdin: longer than 32768 characters, the daemon's limit\n");
    const key = await svcWithStdin('k'.repeat(4097), ['models', 'install', 'anthropic']);
    expect(key.code).toBe(2);
    expect(key.stderr).toMatch(/longer than 4096 characters/);
    expect((await svc('profile', 'env', 'rm', 'coder', '--name', 'GITHUB_TOKEN')).code).toBe(0);
    expect((await svc('profile', 'env', 'rm', 'coder', '--name', 'L')).code).toBe(0);
    expect(JSON.parse((await svc('profile', 'show', 'coder', '--json')).stdout).env).toEqual([]);
  });
});
