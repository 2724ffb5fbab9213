/**
 * `svc node parse` and `svc run parse` against a real daemon whose brokers play scripted models:
 * the result comes out on stdout as JSON; a subject that is not done exits 1.
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
    expect(res.stderr).toMatch(/waiting up to 60s for the parsed result/);
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
    const args = ['node', 'parse', 'think', ...MODEL, '--script', talks];
    const res = await svc(...args, '--output-schema', schema, '--timeout', '2s');
    expect(res.code).toBe(1);
    expect(res.stdout).toMatch(
      /^nd_\w{26} is still (queued|running|waiting) after 2s; wait on with: svc node wait nd_\w{26}\n$/,
    );
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
