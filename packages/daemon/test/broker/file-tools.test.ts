/**
 * `read_file`, `write_file`, `list_files` in the agent loop: real files, the node's worktree
 * reached without a files scope, anything else only through one, refusals as tool errors the
 * model reads. Once over the real Anthropic provider against its fake server, as bash is.
 */
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runAgentLoop } from '../../src/broker/agent-loop.ts';
import type { ScriptedTurn } from '../../src/model-access/providers/index.ts';
import { createLanguageModel } from '../../src/model-access/providers/index.ts';
import { startFakeAnthropic } from './fixtures/fake-anthropic.ts';
import type { FakeProvider } from './fixtures/fake-provider.ts';
import { MemoryDaemon } from './memory-daemon.ts';
import { observed } from './models.ts';

const base = realpathSync(mkdtempSync(join(tmpdir(), 'svc-file-tools-')));
const fakes: FakeProvider[] = [];
afterAll(async () => {
  await Promise.all(fakes.map((f) => f.close()));
  rmSync(base, { recursive: true, force: true });
});

let n = 0;
/** A node's worktree and a directory outside it, both fresh. */
function dirs() {
  n += 1;
  const worktree = join(base, `wt${n}`);
  const outside = join(base, `out${n}`);
  mkdirSync(worktree);
  mkdirSync(outside);
  return { worktree, outside };
}

async function runNode(
  fields: { cwd: string; home?: string; scopes?: string[] | null },
  script: ScriptedTurn[],
) {
  const daemon = new MemoryDaemon();
  const id = daemon.createNode({ task: 'Work with files', ...fields });
  const m = observed(script);
  const exit = await runAgentLoop({
    port: daemon.connect(id).port,
    model: m.model,
    signal: new AbortController().signal,
  });
  return { exit, calls: daemon.get(id).turns[0]!.tool_calls, prompts: m.calls };
}

const submit: ScriptedTurn = { tool_calls: [{ name: 'submit', input: { result: 'done' } }] };

describe('the file tools', () => {
  it('write, read and list inside the worktree without a files scope; paths may be relative', async () => {
    const { worktree } = dirs();
    const { exit, calls } = await runNode({ cwd: worktree }, [
      {
        tool_calls: [
          {
            name: 'write_file',
            input: { path: 'notes/today.md', content: '# hi\n', create_parents: true },
          },
          { name: 'read_file', input: { path: join(worktree, 'notes/today.md') } },
          { name: 'list_files', input: {} },
          { name: 'read_file', input: { path: 'notes/today.md', offset: 2, max_bytes: 1 } },
        ],
      },
      submit,
    ]);
    expect(exit.kind).toBe('submitted');
    expect(readFileSync(join(worktree, 'notes/today.md'), 'utf8')).toBe('# hi\n');
    expect(calls.map((c) => c.status)).toEqual(['ok', 'ok', 'ok', 'ok']);
    expect(calls[0]!.output).toEqual({ path: join(worktree, 'notes/today.md'), size: 5 });
    expect(calls[1]!.output).toMatchObject({
      content: '# hi\n',
      encoding: 'utf8',
      truncated: false,
    });
    expect(calls[2]!.output).toMatchObject({
      path: worktree,
      entries: [{ name: 'notes', type: 'directory' }],
      truncated: false,
    });
    expect(calls[3]!.output).toMatchObject({ content: 'h', offset: 2, truncated: true });
  });

  it('outside the worktree a files scope is needed; a refusal is a tool error the model reads', async () => {
    const { worktree, outside } = dirs();
    writeFileSync(join(outside, 'data.txt'), 'outside');
    symlinkSync(outside, join(worktree, 'escape'));
    const script: ScriptedTurn[] = [
      {
        tool_calls: [
          { name: 'read_file', input: { path: join(outside, 'data.txt') } },
          { name: 'write_file', input: { path: 'escape/data.txt', content: 'overwritten' } },
          { name: 'list_files', input: { path: 'missing' } },
          { name: 'read_file', input: { path: '.' } },
        ],
      },
      submit,
    ];
    const { exit, calls, prompts } = await runNode(
      { cwd: worktree, scopes: ['svc:llm', 'svc:act'] },
      script,
    );
    expect(exit.kind).toBe('submitted');
    expect(calls.map((c) => c.status)).toEqual(['error', 'error', 'error', 'error']);
    expect(calls[0]!.output).toMatch(
      new RegExp(`^scope_missing: .*svc:files:read:user:${outside}/data\\.txt`),
    );
    expect(calls[1]!.output).toMatch(/^scope_missing: .*symbolic link/);
    expect(calls[2]!.output).toMatch(/^not_found: /);
    expect(calls[3]!.output).toMatch(/^validation_failed: .*is a directory/);
    expect(readFileSync(join(outside, 'data.txt'), 'utf8')).toBe('outside');
    expect(JSON.stringify(prompts[1]!.prompt)).toContain('scope_missing');

    // With a read scope on it, the same read succeeds; the write still needs rw.
    const scoped = await runNode(
      { cwd: worktree, scopes: ['svc:llm', 'svc:act', `svc:files:read:user:${outside}`] },
      script,
    );
    expect(scoped.calls.map((c) => c.status)).toEqual(['ok', 'error', 'error', 'error']);
    expect(scoped.calls[0]!.output).toMatchObject({ content: 'outside' });
    expect(scoped.calls[1]!.output).toMatch(/^scope_missing: /);
  });

  it("keep a node out of svc's home outside its worktree, whatever its scopes cover", async () => {
    // As a launch lays it out: the worktree under <home>/worktrees, the owner token beside.
    n += 1;
    const home = join(base, `home${n}`);
    const worktree = join(home, 'worktrees', 'nd_x');
    mkdirSync(worktree, { recursive: true });
    writeFileSync(join(home, 'owner.token'), 'svc_owner_secret');
    writeFileSync(join(worktree, 'mine.txt'), 'mine');
    const { calls } = await runNode(
      { cwd: worktree, home, scopes: ['svc:llm', 'svc:act', `svc:files:read:user:${base}`] },
      [
        {
          tool_calls: [
            { name: 'read_file', input: { path: join(home, 'owner.token') } },
            { name: 'read_file', input: { path: 'mine.txt' } },
          ],
        },
        submit,
      ],
    );
    expect(calls[0]).toMatchObject({ status: 'error' });
    expect(JSON.stringify(calls[0]!.output)).toMatch(/only the owner's token reaches/);
    expect(JSON.stringify(calls[0]!.output)).not.toContain('svc_owner_secret');
    expect(calls[1]).toMatchObject({ status: 'ok', output: { content: 'mine' } });
  });

  it('are not offered without svc:act', async () => {
    const { worktree } = dirs();
    const { calls } = await runNode({ cwd: worktree, scopes: ['svc:llm'] }, [
      { tool_calls: [{ name: 'write_file', input: { path: 'x', content: 'x' } }] },
      submit,
    ]);
    expect(calls[0]).toMatchObject({
      status: 'error',
      output: 'tool write_file is not available to this node',
    });
  });

  it('runs write_file asked for by a real provider and sends its result back', async () => {
    const { worktree } = dirs();
    const fake = await startFakeAnthropic();
    fakes.push(fake);
    fake.enqueue(
      { tool_calls: [{ name: 'write_file', input: { path: 'out.txt', content: 'from model' } }] },
      { tool_calls: [{ name: 'submit', input: { result: 'written' } }] },
    );
    const daemon = new MemoryDaemon();
    const model = { provider: 'anthropic' as const, model: 'claude-sonnet-4-5' };
    const id = daemon.createNode({ task: 'Write a file', cwd: worktree, model });
    const exit = await runAgentLoop({
      port: daemon.connect(id).port,
      model: createLanguageModel({ ...model, apiKey: 'test-key', baseUrl: fake.baseUrl }),
      signal: new AbortController().signal,
    });
    expect(exit.kind).toBe('submitted');
    expect(readFileSync(join(worktree, 'out.txt'), 'utf8')).toBe('from model');
    const offered = fake.requests[0]!.body.tools.map((t: { name: string }) => t.name);
    expect(offered).toEqual(expect.arrayContaining(['read_file', 'write_file', 'list_files']));
    const tool = fake.requests[0]!.body.tools.find((t: { name: string }) => t.name === 'read_file');
    expect(tool.input_schema.required).toEqual(['path']);
    expect(JSON.stringify(fake.requests[1]!.body)).toContain(`"size\\":10`);
  });
});
