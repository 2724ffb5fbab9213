/**
 * `svc node parse` and `svc run parse` against a real daemon whose brokers play scripted models:
 * the result comes out on stdout as JSON; a subject that is not done exits 1, one that cannot end
 * unless someone acts stops the wait early with exit 4.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DaemonHandle, startDaemon } from '@svc/daemon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useIdleDaemon } from './idle-daemon.ts';
import { inProcessSvc } from './support.ts';

const MODEL = ['--model', 'scripted/replay'];
let home = '';
let daemon: DaemonHandle | undefined;
let schema = '';
let submits = '';
let talks = '';
let fails = '';
let sleeps = '';
const svc = inProcessSvc(() => home);
const idle = useIdleDaemon('svc-cli-p-'); // only for the usage errors, which never reach it

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'svc-cli-parse-'));
  daemon = await startDaemon({ home, logLevel: 'warn' });
  schema = join(home, 'schema.json');
  writeFileSync(
    schema,
    JSON.stringify({
      type: 'object',
      properties: { lines: { type: 'integer' } },
      required: ['lines'],
    }),
  );
  submits = join(home, 'submits.json');
  writeFileSync(
    submits,
    JSON.stringify([
      { tool_calls: [{ name: 'submit', input: { summary: 'a haiku', result: { lines: 3 } } }] },
    ]),
  );
  // Text and no tool call: the node then waits for a message, never done.
  talks = join(home, 'talks.json');
  writeFileSync(talks, JSON.stringify([{ text: 'let me think' }]));
  // A command that outlasts a short --timeout, then a result.
  sleeps = join(home, 'sleeps.json');
  writeFileSync(
    sleeps,
    JSON.stringify([
      { tool_calls: [{ name: 'bash', input: { command: 'sleep 3' } }] },
      { tool_calls: [{ name: 'submit', input: { result: { lines: 1 } } }] },
    ]),
  );
  // One tool call, then the script has no second turn to play: the node fails.
  fails = join(home, 'fails.json');
  writeFileSync(
    fails,
    JSON.stringify([{ tool_calls: [{ name: 'report', input: { text: 'half way' } }] }]),
  );
});
afterAll(async () => {
  await daemon?.close();
  rmSync(home, { recursive: true, force: true });
});

describe('svc node parse', () => {
  it('prints the result matching --output-schema, and exits 0', async () => {
    const args = ['node', 'parse', 'write', 'a', 'haiku', ...MODEL, '--script', submits];
    const res = await svc(...args, '--output-schema', schema, '--timeout', '60s');
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual({ lines: 3 });
    expect(res.stderr).toMatch(/^created nd_\w{26}; waiting up to 60s for its result$/m);
    // Progress as `node wait` shows it: the node's events on stderr.
    expect(res.stderr).toMatch(/queued → running \(start\)/);
    expect(res.stderr).toMatch(/outcome done/);
  });

  it('--json prints the whole answer: final, node and parsed', async () => {
    const args = ['node', 'parse', 'count', ...MODEL, '--script', submits, '--title', 'count'];
    const res = await svc(...args, '--output-schema', schema, '--json');
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toBe('');
    expect(JSON.parse(res.stdout)).toMatchObject({
      final: true,
      node: { state: 'done', title: 'count', output_schema: { required: ['lines'] } },
      parsed: { lines: 3 },
    });
  });

  it('a node that ended other than done is shown as svc node show shows it (exit 1)', async () => {
    const args = ['node', 'parse', 'fail', ...MODEL, '--script', fails];
    const res = await svc(...args, '--output-schema', schema, '--timeout', '60s');
    expect(res.code).toBe(1);
    expect(res.stdout).toMatch(/^state\s+failed/m);
    expect(res.stdout).toMatch(/script_exhausted|asked for turn 2/);
  });

  it('a node still going after --timeout is named with the command that waits on (exit 1)', async () => {
    const args = ['node', 'parse', 'sleep', ...MODEL, '--script', sleeps];
    const res = await svc(...args, '--output-schema', schema, '--timeout', '1s');
    expect(res.code).toBe(1);
    expect(res.stdout).toMatch(
      /^nd_\w{26} is still (queued|running) after 1s; wait on with: svc node wait nd_\w{26}\n$/,
    );
  });

  it('stops early when the node waits for a message: says so, names the fix, exits 4', async () => {
    const args = ['node', 'parse', 'think', ...MODEL, '--script', talks];
    // The timeout is far off: the command returns once the node parks, not at the timeout.
    const res = await svc(...args, '--output-schema', schema, '--timeout', '10m');
    expect(res.code, res.stderr).toBe(4);
    const id = /^nd_\w{26}/.exec(res.stdout)?.[0];
    expect(res.stdout).toBe(
      `${id} is waiting: the model ended its turn without submitting a result; waiting for a message. It will not end unless someone acts: send it a message (svc node message ${id} TEXT), then wait again (svc node wait ${id}).\n`,
    );
    expect(res.stderr).toMatch(/running → waiting/);
    // node wait on it stops at once, the same way; --json adds why to the wait's answer.
    const waited = await svc('node', 'wait', id!, '--timeout', '10m', '--json');
    expect(waited.code).toBe(4);
    expect(JSON.parse(waited.stdout)).toMatchObject({
      final: false,
      node: { id, state: 'waiting', waiting_on: { for: 'mail' } },
      blocked: { node_id: id, for: 'mail', fix: expect.stringContaining('svc node message') },
    });
  });
});

describe('svc run parse', () => {
  it("prints the run's result, and --json the answer with the run", async () => {
    const args = ['run', 'parse', 'write', 'a', 'haiku', ...MODEL, '--script', submits];
    const res = await svc(...args, '--output-schema', schema);
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual({ lines: 3 });
    const json = await svc(...args, '--output-schema', schema, '--json');
    expect(JSON.parse(json.stdout)).toMatchObject({
      final: true,
      run: { state: 'done', id: expect.stringMatching(/^run_/) },
      parsed: { lines: 3 },
    });
  });
});

describe('waits that cannot end unless someone acts', () => {
  it('a run whose root waits for a person: run parse stops early naming the request (exit 4)', async () => {
    const asks = join(home, 'asks.json');
    writeFileSync(
      asks,
      JSON.stringify([{ tool_calls: [{ name: 'ask_human', input: { title: 'ok?', body: '' } }] }]),
    );
    const args = ['run', 'parse', 'ask', ...MODEL, '--script', asks, '--output-schema', schema];
    const res = await svc(...args, '--timeout', '10m');
    expect(res.code, res.stderr).toBe(4);
    expect(res.stdout).toMatch(
      /^nd_\w{26} is waiting: .*answer its request \(svc human respond hr_\w{26} --text TEXT\), then wait again \(svc run wait run_\w{26}\)\.\n$/,
    );
  });
});

describe('a wait for a node whose tree still works', () => {
  it('is not stopped by its wait for mail while a child may still send some; it is once none can', async () => {
    const child = {
      provider: 'scripted',
      model: 'sleeper',
      script: [
        { tool_calls: [{ name: 'bash', input: { command: 'sleep 2' } }] },
        { tool_calls: [{ name: 'submit', input: { summary: 'slept' } }] },
      ],
    };
    const delegates = join(home, 'delegates.json');
    writeFileSync(
      delegates,
      JSON.stringify([
        { tool_calls: [{ name: 'spawn', input: { task: 'sleep a while', model: child } }] },
        { text: 'I will wait for news.' },
      ]),
    );
    const args = ['node', 'create', 'delegate', ...MODEL, '--script', delegates];
    const res = await svc(...args, '--wait', '--timeout', '60s');
    expect(res.code, res.stdout + res.stderr).toBe(4);
    const id = /^nd_\w{26}/.exec(res.stdout)?.[0];
    // It stopped only once the child, which could have sent mail, had ended.
    const children = await svc('node', 'ls', '--parent', id!, '--json');
    expect(JSON.parse(children.stdout).data).toEqual([
      expect.objectContaining({ state: 'done', title: 'sleep a while' }),
    ]);
  });
});

describe('parse usage errors (exit 2, nothing sent)', () => {
  it('needs --output-schema holding a JSON object, a task and a valid timeout', async () => {
    for (const [args, message] of [
      [['node', 'parse', 'x'], /parse needs --output-schema <file>/],
      [['run', 'parse', 'x'], /parse needs --output-schema <file>/],
      [['node', 'parse', 'x', '--output-schema', '/dev/zero'], /\/dev\/zero is not a regular file/],
      [
        ['node', 'parse', 'x', '--output-schema', '/no/such/file.json'],
        /--output-schema: cannot read/,
      ],
      [
        ['node', 'parse', 'x', '--output-schema', '/etc/hostname'],
        /--output-schema: .* is not JSON|must hold a JSON object/,
      ],
      [['node', 'parse', ' ', '--output-schema', schema], /give the task/],
      [['node', 'parse', 'x', '--output-schema', schema, '--timeout', 'soon'], /--timeout/],
      [
        ['node', 'parse', 'x', '--output-schema', schema, '--parent', 'bad'],
        /--parent must be nd_/,
      ],
      [['run', 'parse', 'x', '--output-schema', schema, '--max-turns', '0'], /--max-turns/],
    ] as const) {
      await idle.expectUsage([...args], message);
    }
  });
});
