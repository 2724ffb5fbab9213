/** `svc node outcome|events|reports` and `svc run events` against a real daemon, in-process. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalClient } from '@svc/client/node';
import { type DaemonHandle, startDaemon } from '@svc/daemon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useIdleDaemon } from './idle-daemon.ts';
import { inProcessSvc } from './support.ts';

const idle = useIdleDaemon('svc-cli-inspect-');
const { svc, expectUsage } = idle;
const MISSING = 'nd_01ARZ3NDEKTSV4RRFFQ69G5FAV';
const MODEL = ['--model', 'scripted/replay'];

const createNode = (...extra: string[]) => idle.createNode(['a', 'task'], ...extra);

function rows(stdout: string): string[] {
  return stdout.trimEnd().split('\n');
}

describe('svc node outcome', () => {
  it("prints a final node's state, summary, error and result", async () => {
    const node = await createNode();
    // not final yet: the daemon's 409, one line, exit 1
    const early = await svc('node', 'outcome', node.id);
    expect(early.code).toBe(1);
    expect(early.stderr).toMatch(/^svc: .*\(invalid_state, request /);
    expect(rows(early.stderr)).toHaveLength(1);

    const client = createLocalClient({ home: idle.home() });
    await client.nodes.interrupt(node.id);
    await client.nodes.result.submit(node.id, { summary: 'an old pond', result: { lines: 3 } });
    const human = await svc('node', 'outcome', node.id);
    expect(human.code, human.stderr).toBe(0);
    expect(rows(human.stdout)).toEqual([
      'state     done',
      'summary   an old pond',
      'error     -',
      'result    {"lines":3}',
      expect.stringMatching(/^finished {2}\d{4}-\d\d-\d\dT/),
    ]);
    const json = await svc('node', 'outcome', node.id, '--json');
    expect(JSON.parse(json.stdout)).toEqual({
      state: 'done',
      summary: 'an old pond',
      result: { lines: 3 },
      error: null,
      finished_at: expect.any(String),
    });

    const cancelled = await createNode();
    await client.nodes.cancel(cancelled.id, { reason: 'not needed' });
    const error = await svc('node', 'outcome', cancelled.id);
    expect(error.stdout).toMatch(/^state\s+cancelled$/m);
    expect(error.stdout).toMatch(/^error\s+cancelled: not needed$/m);
    expect(error.stdout).toMatch(/^result\s+-$/m);
  });

  it('refuses a malformed id before anything is sent', async () => {
    await expectUsage(['node', 'outcome', 'nd_short'], /node id must be nd_ followed by 26/);
  });
});

describe('svc node events', () => {
  it("prints a page of a node's events as a table, or the page as JSON", async () => {
    const node = await createNode();
    await svc('node', 'message', node.id, 'hello');
    await svc('node', 'cancel', node.id, '--reason', 'not needed');
    const human = await svc('node', 'events', node.id);
    expect(human.code, human.stderr).toBe(0);
    const lines = rows(human.stdout);
    expect(lines[0]).toMatch(/^SEQ\s+TIME\s+KIND\s+SUBJECT\s+DETAIL$/);
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(
        new RegExp(`^\\d+\\s+just now\\s+node\\.state\\s+${node.id}\\s+new → queued \\(create\\)$`),
      ),
      expect.stringMatching(/node\.mail\s+nd_\w+\s+mail #1 from owner: hello$/),
      expect.stringMatching(/node\.state\s+nd_\w+\s+queued → cancelled \(cancel\): not needed$/),
      expect.stringMatching(/node\.outcome\s+nd_\w+\s+outcome cancelled: not needed$/),
    ]);
    expect(human.stderr).toBe('');

    const json = await svc('node', 'events', node.id, '--json');
    const page = JSON.parse(json.stdout);
    expect(page.data.map((e: { kind: string }) => e.kind)).toEqual([
      'node.state',
      'node.mail',
      'node.state',
      'node.outcome',
    ]);
    expect(page).toMatchObject({ has_more: false, next_cursor: String(page.data[3].seq) });

    // a page at a time: the note on stderr is the command for the next one
    const first = await svc('node', 'events', node.id, '--limit', '2');
    expect(rows(first.stdout)).toHaveLength(3);
    const second = page.data[1].seq;
    expect(first.stderr).toBe(
      `more events: svc node events ${node.id} --limit 2 --after ${second}\n`,
    );
    const next = await svc(
      'node',
      'events',
      node.id,
      '--limit',
      '2',
      '--after',
      String(second),
      '--json',
    );
    expect(JSON.parse(next.stdout).data.map((e: { kind: string }) => e.kind)).toEqual([
      'node.state',
      'node.outcome',
    ]);

    const mail = await svc(
      'node',
      'events',
      node.id,
      '--kinds',
      'node.mail,node.outcome',
      '--json',
    );
    expect(JSON.parse(mail.stdout).data.map((e: { kind: string }) => e.kind)).toEqual([
      'node.mail',
      'node.outcome',
    ]);
  });

  it("--subtree adds the descendants' events", async () => {
    const parent = await createNode();
    const child = await createNode('--parent', parent.id);
    const subjects = async (...extra: string[]) =>
      JSON.parse((await svc('node', 'events', parent.id, ...extra, '--json')).stdout).data.map(
        (e: { subject_id: string }) => e.subject_id,
      );
    expect(await subjects()).toEqual([parent.id]);
    expect(await subjects('--subtree')).toEqual([parent.id, child.id]);
  });

  it('refuses bad flag values and a bad id before anything is sent', async () => {
    await expectUsage(['node', 'events', 'nope'], /node id must be nd_/);
    await expectUsage(['node', 'events', MISSING, '--after', '-1'], /--after must be an event seq/);
    await expectUsage(['node', 'events', MISSING, '--limit', '0'], /--limit must be a positive/);
    await expectUsage(['node', 'events', MISSING, '--limit', '201'], /--limit must be at most 200/);
    await expectUsage(['node', 'events', MISSING, '--kinds', 'Node State'], /--kinds must be/);
  });
});

describe('svc run events', () => {
  it("prints a page of the events of the run's tree", async () => {
    const start = await svc(
      'run',
      'start',
      'review',
      ...MODEL,
      '--script',
      idle.script(),
      '--json',
    );
    expect(start.code, start.stderr).toBe(0);
    const run = JSON.parse(start.stdout);
    await svc('run', 'cancel', run.id, '--reason', 'changed my mind');
    const json = await svc('run', 'events', run.id, '--json');
    expect(json.code, json.stderr).toBe(0);
    const page = JSON.parse(json.stdout);
    const kinds = page.data.map((e: { kind: string }) => e.kind);
    expect(kinds).toContain('run.started');
    expect(kinds.at(-1)).toBe('run.outcome');
    expect(page).toMatchObject({ has_more: false, next_cursor: String(page.data.at(-1).seq) });

    const human = await svc('run', 'events', run.id, '--kinds', 'run.outcome');
    expect(human.code, human.stderr).toBe(0);
    expect(rows(human.stdout)).toEqual([
      expect.stringMatching(/^SEQ\s+TIME\s+KIND\s+SUBJECT\s+DETAIL$/),
      expect.stringMatching(
        new RegExp(`run\\.outcome\\s+${run.id}\\s+outcome cancelled: changed my mind$`),
      ),
    ]);
    const first = await svc('run', 'events', run.id, '--limit', '1');
    expect(first.stderr).toBe(
      `more events: svc run events ${run.id} --limit 1 --after ${page.data[0].seq}\n`,
    );
  });

  it('refuses a node id and bad flag values before anything is sent', async () => {
    await expectUsage(['run', 'events', MISSING], /run id must be run_/);
    await expectUsage(
      ['run', 'events', 'run_01ARZ3NDEKTSV4RRFFQ69G5FAV', '--after', 'x'],
      /--after must be an event seq/,
    );
  });
});

describe('with real brokers', () => {
  let realHome: string;
  let real: DaemonHandle;
  let nodeId: string;

  beforeAll(async () => {
    realHome = mkdtempSync(join(tmpdir(), 'svc-cli-inspect-r-'));
    real = await startDaemon({ home: realHome, logLevel: 'warn' });
    const client = createLocalClient({ home: realHome });
    const { final, node } = await client.nodes.createAndWait({
      task: 'write a haiku',
      model: {
        provider: 'scripted',
        model: 'replay',
        script: [
          { tool_calls: [{ name: 'report', input: { text: 'half way', data: { pct: 50 } } }] },
          { text: 'almost', tool_calls: [{ name: 'report', input: { text: 'almost there' } }] },
          {
            tool_calls: [
              { name: 'submit', input: { summary: 'an old pond', result: { lines: 3 } } },
            ],
          },
        ],
      },
      timeout_s: 60,
    });
    expect(final).toBe(true);
    nodeId = node.id;
  });
  afterAll(async () => {
    await real.close();
    rmSync(realHome, { recursive: true, force: true });
  });

  const inReal = inProcessSvc(() => realHome);

  it('svc node reports: a table, the page as JSON, a page at a time', async () => {
    const human = await inReal('node', 'reports', nodeId);
    expect(human.code, human.stderr).toBe(0);
    const lines = rows(human.stdout);
    expect(lines[0]).toMatch(/^SEQ\s+TIME\s+TEXT\s+DATA$/);
    expect(lines[1]).toMatch(/^1\s+just now\s+half way\s+\{"pct":50\}$/);
    expect(lines[2]).toMatch(/^2\s+just now\s+almost there\s+-$/);
    expect(lines).toHaveLength(3);

    const json = await inReal('node', 'reports', nodeId, '--json');
    expect(JSON.parse(json.stdout)).toEqual({
      data: [
        {
          seq: 1,
          node_id: nodeId,
          text: 'half way',
          data: { pct: 50 },
          created_at: expect.any(String),
        },
        {
          seq: 2,
          node_id: nodeId,
          text: 'almost there',
          data: null,
          created_at: expect.any(String),
        },
      ],
      has_more: false,
      next_cursor: null,
    });

    const first = await inReal('node', 'reports', nodeId, '--limit', '1');
    expect(rows(first.stdout)).toHaveLength(2);
    expect(first.stderr).toBe(`more reports: svc node reports ${nodeId} --limit 1 --after 1\n`);
    const next = await inReal('node', 'reports', nodeId, '--after', '1', '--json');
    expect(JSON.parse(next.stdout).data.map((r: { seq: number }) => r.seq)).toEqual([2]);
  });

  it('svc node events and outcome show the turns and the submitted result', async () => {
    const turns = await inReal('node', 'events', nodeId, '--kinds', 'node.turn');
    expect(turns.code, turns.stderr).toBe(0);
    expect(rows(turns.stdout).slice(1)).toEqual([
      expect.stringMatching(/node\.turn\s+nd_\w+\s+turn 1: → report$/),
      expect.stringMatching(/node\.turn\s+nd_\w+\s+turn 2: almost → report$/),
      expect.stringMatching(/node\.turn\s+nd_\w+\s+turn 3: → submit$/),
    ]);
    const outcome = await inReal('node', 'outcome', nodeId);
    expect(outcome.stdout).toMatch(/^summary\s+an old pond$/m);
    expect(outcome.stdout).toMatch(/^result\s+\{"lines":3\}$/m);
  });

  it('svc node reports refuses a bad --after before anything is sent', async () => {
    await expectUsage(
      ['node', 'reports', MISSING, '--after', 'one'],
      /--after must be a report seq; received 'one'/,
    );
    await expectUsage(['node', 'reports', 'nope'], /node id must be nd_/);
  });
});
