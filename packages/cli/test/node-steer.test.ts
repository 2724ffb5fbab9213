/** `svc node update|result|relaunch-root|revive-all` against a real daemon, in-process. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLocalClient } from '@svc/client/node';
import { describe, expect, it } from 'vitest';
import { useIdleDaemon } from './idle-daemon.ts';

const idle = useIdleDaemon('svc-cli-steer-');
const { svc, expectUsage } = idle;
const MISSING = 'nd_01ARZ3NDEKTSV4RRFFQ69G5FAV';

const createNode = (...extra: string[]) => idle.createNode(['a', 'task'], ...extra);

describe('svc node update', () => {
  it('changes title, budgets and labels; prints the node', async () => {
    const node = await createNode('--max-cost-usd', '2', '--label', 'old=1');
    const json = await svc(
      'node',
      'update',
      node.id,
      '--title',
      'renamed',
      '--max-turns',
      '9',
      '--max-cost-usd',
      'none',
      '--label',
      'team=docs',
      '--label',
      'tier=gold',
      '--json',
    );
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      id: node.id,
      title: 'renamed',
      budgets: { max_turns: 9, max_cost_usd: null },
      metadata: { team: 'docs', tier: 'gold' },
    });
    const human = await svc('node', 'update', node.id, '--clear-labels', '--max-tokens', '5000');
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/^title\s+renamed$/m);
    expect(human.stdout).toMatch(/^budgets\s+turns 9, tokens 5000, usd none$/m);
    const after = await createLocalClient({ home: idle.home() }).nodes.retrieve(node.id);
    expect(after.metadata).toEqual({});
  });

  it('refuses an update without a change, and bad values, before anything is sent', async () => {
    await expectUsage(['node', 'update', MISSING], /nothing to update: give --title/);
    await expectUsage(['node', 'update', 'nd_bad', '--title', 'x'], /node id must be nd_/);
    await expectUsage(
      ['node', 'update', MISSING, '--max-turns', '0'],
      /--max-turns must be a positive whole number, or 'none'/,
    );
    await expectUsage(
      ['node', 'update', MISSING, '--max-cost-usd', 'lots'],
      /--max-cost-usd must be a positive number/,
    );
    await expectUsage(['node', 'update', MISSING, '--title', ''], /^svc: --title: /);
    await expectUsage(['node', 'update', MISSING, '--max-turns', '2000000'], /^svc: --max-turns: /);
    await expectUsage(
      ['node', 'update', MISSING, '--label', 'novalue'],
      /--label must be key=value/,
    );
    await expectUsage(
      ['node', 'update', MISSING, '--label', 'a=b', '--clear-labels'],
      /cannot go with --label/,
    );
  });
});

describe('svc node result', () => {
  it('submits a summary and a result from outside: the node is done', async () => {
    const node = await createNode();
    // only a running or waiting node takes a result: a queued one is refused by the daemon
    const queued = await svc('node', 'result', node.id, '--summary', 'too soon');
    expect(queued.code).toBe(1);
    expect(queued.stderr).toMatch(
      /^svc: node is 'queued'; 'submit' is allowed only from running, waiting \(invalid_state, request /,
    );
    expect(queued.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect((await svc('node', 'interrupt', node.id)).code).toBe(0);
    const json = await svc(
      'node',
      'result',
      node.id,
      '--summary',
      'by hand',
      '--data',
      '{"n":1}',
      '--json',
    );
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      id: node.id,
      state: 'done',
      outcome: { state: 'done', summary: 'by hand', result: { n: 1 }, error: null },
    });
    const other = await createNode();
    await svc('node', 'interrupt', other.id);
    const file = join(idle.home(), 'result.json');
    writeFileSync(file, '[1, 2, 3]');
    const human = await svc('node', 'result', other.id, '--data', `@${file}`);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/^state\s+done$/m);
    expect(human.stdout).toMatch(/^outcome\s+done \[1,2,3\]$/m);
  });

  it('refuses nothing to submit, bad JSON and a bad id before anything is sent', async () => {
    await expectUsage(['node', 'result', MISSING], /give --summary, --data or both/);
    await expectUsage(
      ['node', 'result', MISSING, '--data', '{oops'],
      /--data: the argument is not valid JSON/,
    );
    await expectUsage(['node', 'result', 'nope', '--summary', 'x'], /node id must be nd_/);
    await expectUsage(
      ['node', 'result', MISSING, '--summary', 'x'.repeat(100_001)],
      /^svc: --summary: /,
    );
  });
});

describe('svc node relaunch-root', () => {
  it("restarts the tree's root and prints the root", async () => {
    const root = await createNode();
    const child = await createNode('--parent', root.id);
    const json = await svc('node', 'relaunch-root', child.id, '--json');
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      id: root.id,
      root_id: root.id,
      state: 'queued',
    });
    const human = await svc('node', 'relaunch-root', root.id);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(new RegExp(`^id\\s+${root.id}$`, 'm'));
  });

  it('refuses a malformed id before anything is sent', async () => {
    await expectUsage(
      ['node', 'relaunch-root', 'run_01ARZ3NDEKTSV4RRFFQ69G5FAV'],
      /node id must be nd_/,
    );
  });
});

describe('svc node revive-all', () => {
  it('queues the cancelled nodes of one tree again; prints them', async () => {
    const root = await createNode();
    const child = await createNode('--parent', root.id);
    expect((await svc('node', 'cancel', root.id)).code).toBe(0);
    // the default revives failed nodes only: a cancellation was somebody's decision
    const none = await svc('node', 'revive-all', '--root', root.id);
    expect(none).toMatchObject({ code: 0, stdout: 'no failed nodes to revive\n' });
    const json = await svc(
      'node',
      'revive-all',
      '--root',
      root.id,
      '--state',
      'failed,cancelled',
      '--json',
    );
    expect(json.code, json.stderr).toBe(0);
    const answer = JSON.parse(json.stdout);
    expect(answer.count).toBe(2);
    expect([...answer.node_ids].sort()).toEqual([root.id, child.id].sort());
    expect((await createLocalClient({ home: idle.home() }).nodes.retrieve(child.id)).state).toBe(
      'queued',
    );

    const other = await createNode();
    await svc('node', 'cancel', other.id);
    const human = await svc('node', 'revive-all', '--root', other.id, '--state', 'cancelled');
    expect(human).toMatchObject({ code: 0, stdout: `ID\n${other.id}\n` });
  });

  it('refuses a state it cannot revive and a bad --root before anything is sent', async () => {
    await expectUsage(
      ['node', 'revive-all', '--state', 'done'],
      /--state must be among failed, cancelled; received 'done'/,
    );
    await expectUsage(['node', 'revive-all', '--root', 'nope'], /--root must be nd_/);
  });
});
