/** `svc node …` and `svc run …` against a real daemon, in-process. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { createLocalClient } from '@svc/client/node';
import { startDaemon } from '@svc/daemon';
import { beforeAll, describe, expect, it } from 'vitest';
import { useIdleDaemon } from './idle-daemon.ts';
import { inProcessSvc } from './support.ts';

const idle = useIdleDaemon('svc-cli-n-');
const { svc } = idle;
const MODEL = ['--model', 'scripted/replay'];
let badScript: string;
beforeAll(() => {
  badScript = join(idle.home(), 'bad-script.json');
  writeFileSync(badScript, JSON.stringify([1]));
});

const createNode = (...extra: string[]) => idle.createNode(['write', 'a', 'haiku'], ...extra);

describe('svc node', () => {
  it('create, ls, show and message', async () => {
    // a repeated --scopes adds to the list
    const node = await createNode(
      '--max-turns',
      '7',
      '--label',
      'team=docs',
      '--scopes',
      'svc:llm',
      '--scopes',
      'svc:act',
    );
    expect(node).toMatchObject({
      state: 'queued',
      title: 'write a haiku',
      budgets: { max_turns: 7 },
      metadata: { team: 'docs' },
      scopes: ['svc:llm', 'svc:act'],
    });
    const ls = await svc('node', 'ls', '--state', 'queued');
    expect(ls.code).toBe(0);
    expect(ls.stdout).toContain(node.id);
    expect(ls.stdout).toMatch(/ID\s+STATE/);
    const show = await svc('node', 'show', node.id);
    expect(show.stdout).toMatch(/state\s+queued/);
    expect(show.stdout).toContain('scripted/replay');
    const msg = await svc('node', 'message', node.id, 'please', 'rhyme');
    expect(msg).toMatchObject({ code: 0, stdout: `sent mail #1 to ${node.id}\n` });
  });

  it('ls keeps its columns aligned on a colour terminal (a coloured state counts as its text)', async () => {
    const node = await createNode();
    await svc('node', 'cancel', node.id);
    const coloured = inProcessSvc(idle.home, () => ({ FORCE_COLOR: '1' }));
    const ls = await coloured('node', 'ls', '--state', 'cancelled', '--limit', '1');
    expect(ls.stdout).toContain('\x1b['); // coloured indeed
    const [header, row] = stripVTControlCharacters(ls.stdout).split('\n');
    // Each column after STATE starts in the row where its header does.
    for (const name of ['TURNS', 'TITLE']) {
      const at = header!.indexOf(name);
      expect(row![at - 1], name).toBe(' ');
      expect(row![at], name).not.toBe(' ');
    }
  });

  it('watch prints state changes and mail until the node is final', async () => {
    const node = await createNode();
    await svc('node', 'message', node.id, 'hello');
    await svc('node', 'cancel', node.id, '--reason', 'not needed');
    const watch = await svc('node', 'watch', node.id);
    expect(watch.code).toBe(0);
    const lines = watch.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/new → queued \(create\)/);
    expect(lines[1]).toMatch(/mail #1 from owner: hello/);
    expect(lines[2]).toMatch(/queued → cancelled \(cancel\): not needed/);
    expect(lines[3]).toMatch(/outcome cancelled: not needed/);
    const json = await svc('node', 'watch', node.id, '--json');
    const events = json.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(events.map((e) => e.kind)).toEqual([
      'node.state',
      'node.mail',
      'node.state',
      'node.outcome',
    ]);
    // Past its outcome, a final node has nothing more to print: the watch ends, it does not wait.
    const last = events.at(-1).seq as number;
    const after = await svc('node', 'watch', node.id, '--after', String(last));
    expect(after).toMatchObject({ code: 0, stdout: '' });
    const tail = await svc('node', 'watch', node.id, '--after', String(last - 1), '--json');
    expect(JSON.parse(tail.stdout).kind).toBe('node.outcome');
  });

  it('wait shows progress on stderr and exits 0 only when the node is done', async () => {
    const node = await createNode();
    const early = await svc('node', 'wait', node.id, '--timeout', '1s');
    expect(early.code).toBe(1);
    expect(early.stdout).toContain(`${node.id} is still queued after 1s`);
    expect(early.stderr).toMatch(/new → queued \(create\)/);

    const client = createLocalClient({ home: idle.home() });
    setTimeout(() => void client.nodes.cancel(node.id), 300);
    const cancelled = await svc('node', 'wait', node.id, '--timeout', '30s', '--json');
    expect(cancelled.code).toBe(1);
    expect(JSON.parse(cancelled.stdout)).toMatchObject({
      final: true,
      node: { state: 'cancelled' },
    });
    expect(cancelled.stderr).toBe('');
  });

  it('fork, promote, demote, interrupt and revive', async () => {
    const a = await createNode();
    const b = await createNode();
    const fork = await svc('node', 'fork', a.id, '--title', 'the copy', '--json');
    const copy = JSON.parse(fork.stdout);
    expect(copy).toMatchObject({ title: 'the copy', state: 'queued' });
    expect((await svc('node', 'demote', copy.id, '--parent', b.id, '--json')).stdout).toContain(
      `"parent_id": "${b.id}"`,
    );
    expect((await svc('node', 'promote', copy.id)).code).toBe(0);
    const interrupted = await svc('node', 'interrupt', a.id, '--json');
    expect(JSON.parse(interrupted.stdout).state).toBe('waiting');
    const refused = await svc('node', 'revive', a.id);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /^svc: .*node is 'waiting'; 'revive' is allowed only from failed, cancelled/,
    );
    expect(refused.stderr.trimEnd().split('\n')).toHaveLength(1);
  });

  it('worktree close and abandon: refused while the node may run, then removed', async () => {
    const a = await createNode();
    const refused = await svc('node', 'worktree', 'close', a.id);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^svc: .* is queued; its worktree can be closed once/);
    expect((await svc('node', 'cancel', a.id)).code).toBe(0);
    const closed = await svc('node', 'worktree', 'close', a.id);
    expect(closed.code).toBe(0);
    // Never launched (cancelled while queued): there was no worktree to remove, and it says so.
    expect(closed.stdout).toBe(
      `no worktree at ${join(idle.home(), 'worktrees', a.id)}: nothing to remove\n`,
    );
    const abandoned = await svc('node', 'worktree', 'abandon', a.id, '--json');
    expect(JSON.parse(abandoned.stdout)).toEqual({
      node_id: a.id,
      path: join(idle.home(), 'worktrees', a.id),
      exists: false,
      removed: false,
      branch: null,
    });
  });

  it('wait on a node that does not exist: one line, exit 1 (the progress stream fails first)', async () => {
    for (const args of [
      ['node', 'wait', 'nd_01ARZ3NDEKTSV4RRFFQ69G5FAV'],
      ['run', 'wait', 'run_01ARZ3NDEKTSV4RRFFQ69G5FAV', '--timeout', '2'],
    ]) {
      const res = await svc(...args);
      expect(res.code).toBe(1);
      expect(res.stderr).toMatch(/^svc: no (node|run) .*\(not_found, request /);
      expect(res.stderr.trimEnd().split('\n')).toHaveLength(1);
    }
  });

  it('create refuses a model that cannot run: one line naming the fix, exit 1, nothing made', async () => {
    const before = JSON.parse((await svc('node', 'ls', '--limit', '200', '--json')).stdout).data;
    const keyless = await svc('node', 'create', 'x', '--model', 'anthropic/claude-sonnet-4-5');
    expect(keyless.code).toBe(1);
    expect(keyless.stderr).toMatch(
      /^svc: anthropic is not ready: no API key is installed; run: svc models install anthropic .*\(invalid_state, request [\w-]+\)\n$/,
    );
    const scriptless = await svc('run', 'start', 'x', '--model', 'scripted/replay');
    expect(scriptless.code).toBe(1);
    expect(scriptless.stderr).toMatch(/--script FILE.*\(invalid_request, request/);
    const after = JSON.parse((await svc('node', 'ls', '--limit', '200', '--json')).stdout).data;
    expect(after).toHaveLength(before.length);
  });

  it('bad arguments are one usage line, exit 2', async () => {
    for (const [args, message] of [
      [['node', 'show', 'nope'], /node id must be nd_/],
      [['node', 'create', 'x', '--script', idle.script()], /--script needs --model scripted/],
      [['node', 'create', 'x', '--max-turns', '0'], /--max-turns must be a positive whole number/],
      [['node', 'create', 'x', '--label', 'novalue'], /--label must be key=value/],
      [['node', 'create', 'x', '--scopes', 'act'], /--scopes: .*svc:act/],
      [['node', 'ls', '--state', 'sleeping'], /--state must be among/],
      [['node', 'fork', 'nd_01ARZ3NDEKTSV4RRFFQ69G5FAV', '--through-turn', 'x'], /--through-turn/],
      [['run', 'ls', '--app', 'x'], /--app requires --all/],
      [['run', 'show', 'nd_01ARZ3NDEKTSV4RRFFQ69G5FAV'], /run id must be run_/],
      // checked with the daemon's own create schema, before anything is sent
      [['node', 'create', 'x', '--profile', 'BAD_NAME'], /^svc: --profile: /],
      [['node', 'create', 'x', '--title', ''], /^svc: --title: /],
      [['node', 'create', 'x', ...MODEL, '--script', badScript], /^svc: --script\.0: /],
      [['run', 'start', 'x', '--profile', 'BAD_NAME'], /^svc: --profile: /],
      [['node', 'ls', '--run', 'bad'], /--run must be run_/],
      [['node', 'ls', '--profile', 'BAD'], /--profile must be a lowercase letter/],
      [['run', 'ls', '--all', '--app', 'BAD'], /--app must be a lowercase letter/],
    ] as const) {
      const res = await svc(...args);
      expect(res.code, args.join(' ')).toBe(2);
      expect(res.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(res.stderr).toMatch(message);
    }
  });
});

describe('svc run', () => {
  it('start, ls, show, message, interrupt, reply, cancel, trace and rm', async () => {
    const start = await svc(
      'run',
      'start',
      'review',
      'the',
      'PR',
      ...MODEL,
      '--script',
      idle.script(),
      '--json',
    );
    expect(start.code, start.stderr).toBe(0);
    const r = JSON.parse(start.stdout);
    expect(r).toMatchObject({ state: 'queued', title: 'review the PR', app_id: null });
    expect((await svc('run', 'ls')).stdout).toContain(r.id);
    expect((await svc('run', 'ls', '--all')).stdout).toContain(r.id);
    expect((await svc('run', 'show', r.id)).stdout).toMatch(/state\s+queued/);
    const early = await svc('run', 'reply', r.id, 'too', 'soon');
    expect(early.code).toBe(1);
    expect(early.stderr).toMatch(/reply answers a run waiting for a message/);
    expect((await svc('run', 'message', r.id, 'note')).stdout).toBe(`sent mail #1 to ${r.id}\n`);
    expect((await svc('run', 'interrupt', r.id)).stdout).toMatch(/state\s+waiting/);
    expect((await svc('run', 'reply', r.id, 'go')).code).toBe(0);
    expect((await svc('run', 'rename', r.id, 'new', 'title', '--json')).stdout).toContain(
      '"title": "new title"',
    );
    expect((await svc('run', 'trace', r.id)).stdout).toBe('no turns\n');
    expect((await svc('run', 'rm', r.id)).code).toBe(1); // still live
    expect((await svc('run', 'cancel', r.id)).code).toBe(0);
    const watch = await svc('run', 'watch', r.id);
    expect(watch.stdout.trimEnd().split('\n').at(-1)).toMatch(/outcome cancelled/);
    const seqs = (await svc('run', 'watch', r.id, '--json')).stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l).seq as number);
    const past = await svc('run', 'watch', r.id, '--after', String(Math.max(...seqs)));
    expect(past).toMatchObject({ code: 0, stdout: '' });
    const wait = await svc('run', 'wait', r.id, '--json');
    expect(JSON.parse(wait.stdout)).toMatchObject({ final: true, run: { state: 'cancelled' } });
    expect((await svc('run', 'rm', r.id)).stdout).toBe(`deleted ${r.id}\n`);
  });
});

describe('with real brokers', () => {
  it('svc node create --wait shows turns and tool calls live, then the outcome', async () => {
    const realHome = mkdtempSync(join(tmpdir(), 'svc-cli-r-'));
    const real = await startDaemon({ home: realHome, logLevel: 'warn' });
    try {
      const file = join(realHome, 'submit.json');
      writeFileSync(
        file,
        JSON.stringify([
          {
            text: 'thinking it over',
            tool_calls: [{ name: 'report', input: { text: 'half way' } }],
          },
          { tool_calls: [{ name: 'no_such_tool', input: {} }] },
          {
            tool_calls: [
              { name: 'submit', input: { summary: 'an old pond', result: { lines: 3 } } },
            ],
          },
        ]),
      );
      const args = ['node', 'create', 'write', 'a', 'haiku', ...MODEL, '--script', file];
      const { code, stdout, stderr } = await inProcessSvc(() => realHome)(
        ...args,
        '--wait',
        '--timeout',
        '60s',
      );
      expect(code, stderr).toBe(0);
      expect(stdout).toMatch(/state\s+done/);
      expect(stdout).toContain('an old pond');
      // the start names what the model is offered (the owner's node: every built-in)
      expect(stderr).toMatch(
        /queued → running \(start\); tools: bash, read_file, write_file, list_files, spawn, message, ask_human, wait, yield, report, submit, memory_read, memory_list, memory_write$/m,
      );
      expect(stderr).toMatch(/turn 1: thinking it over → report/);
      expect(stderr).toMatch(/tool report ok/);
      expect(stderr).toMatch(/report: half way/);
      // a call of a tool not offered shows its refusal, though no tool event follows
      expect(stderr).toMatch(/turn 2:\s*→ no_such_tool error: .*unavailable tool/);
      expect(stderr).toMatch(/turn 3:\s*→ submit/);
      expect(stderr).toMatch(/running → done \(submit\)/);
    } finally {
      await real.close();
      rmSync(realHome, { recursive: true, force: true });
    }
  });
});
