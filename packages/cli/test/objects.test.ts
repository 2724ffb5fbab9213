/** `svc objects …` against a real daemon, in-process, and its usage errors before any request. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DaemonHandle, startDaemon } from '@svc/daemon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inProcessSvc } from './support.ts';

let home = '';
let daemon: DaemonHandle | undefined;
const noDaemon = mkdtempSync(join(tmpdir(), 'svc-cli-o-none-'));
beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'svc-cli-o-'));
  daemon = await startDaemon({
    home,
    logLevel: 'warn',
    objects: { maxAttempts: 2, retryBaseMs: 20, retryMaxMs: 50 },
  });
});
afterAll(async () => {
  await daemon?.close();
  rmSync(home, { recursive: true, force: true });
  rmSync(noDaemon, { recursive: true, force: true });
});

const svc = inProcessSvc(() => home);
const offline = inProcessSvc(() => noDaemon);
let publishToken = '';
const asPublisher = inProcessSvc(
  () => home,
  () => ({ SVC_TOKEN: publishToken }),
);

async function jsonOf(...args: string[]) {
  const res = await svc(...args, '--json');
  expect(res.code, res.stderr).toBe(0);
  return JSON.parse(res.stdout);
}

describe('svc objects', () => {
  it('register, publish with the publish token, ls, get, receive --ack, ack and rm', async () => {
    const obj = await jsonOf('objects', 'register', '--name', 'builds', '--event', 'build.done');
    expect(obj).toMatchObject({
      id: expect.stringMatching(/^obj_/),
      name: 'builds',
      receiver: { kind: 'queue' },
      events: { 'build.done': { description: null, schema: null } },
      publish_token: expect.stringMatching(/^svc_pub_/),
    });
    publishToken = obj.publish_token;

    const first = await asPublisher(
      'objects',
      'publish',
      obj.id,
      'build.done',
      '--data',
      '{"count":1}',
    );
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(
      /^published build\.done: delivery dlv_[0-9A-Z]{26} \(seq \d+\)\n$/,
    );
    const second = JSON.parse(
      (await asPublisher('objects', 'publish', obj.id, 'build.done', '--json')).stdout,
    );
    // The publish token does nothing else.
    const refused = await asPublisher('objects', 'get', obj.id);
    expect(refused.code).toBe(1);

    const ls = await svc('objects', 'ls');
    expect(ls.stdout).toMatch(/ID\s+RECEIVER\s+PENDING\s+EVENTS\s+NAME/);
    expect(ls.stdout).toContain(`${obj.id}  queue     2        build.done  builds`);
    const get = await svc('objects', 'get', obj.id);
    expect(get.stdout).toMatch(/receiver\s+queue/);
    expect(get.stdout).toMatch(/pending\s+2/);

    const received = await svc('objects', 'receive', obj.id, '--count', '2', '--ack', '--json');
    expect(received.code, received.stderr).toBe(0);
    const lines = received.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((d) => d.payload.data)).toEqual([{ count: 1 }, null]);
    expect(lines[1].payload.delivery_id).toBe(second.delivery_id);
    expect((await jsonOf('objects', 'get', obj.id)).pending_deliveries).toBe(0);

    // Acknowledged ones are not sent again: the next receive prints only a new delivery.
    const third = JSON.parse(
      (await asPublisher('objects', 'publish', obj.id, 'build.done', '-d', '{"count":3}', '--json'))
        .stdout,
    );
    const human = await svc('objects', 'receive', obj.id, '--count', '1');
    // It says it waits (stderr), so an empty queue is not mistaken for a hang.
    expect(human.stderr).toBe(`waiting for deliveries to ${obj.id} (until 1 arrive, or Ctrl-C)\n`);
    expect(human.stdout).toMatch(
      new RegExp(
        `^\\s*${third.seq}  \\S+  ${third.delivery_id}  build\\.done  \\{"count":3\\}\\n$`,
      ),
    );
    const acked = await svc('objects', 'ack', obj.id, third.delivery_id);
    expect(acked).toMatchObject({ code: 0, stdout: 'acknowledged 1\n' });
    const unknown = await svc('objects', 'ack', obj.id, 'dlv_01ARZ3NDEKTSV4RRFFQ69G5FAV');
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toMatch(/not deliveries of .*dlv_01ARZ3NDEKTSV4RRFFQ69G5FAV/);

    const rm = await svc('objects', 'rm', obj.id);
    expect(rm).toMatchObject({ code: 0, stdout: `unregistered ${obj.id}\n` });
    const gone = await svc('objects', 'get', obj.id);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/no custom object/);
  });

  it('registers from a JSON file with flags on top; shows the secrets once', async () => {
    const file = join(home, 'object.json');
    writeFileSync(
      file,
      JSON.stringify({
        name: 'hooks',
        events: { deployed: { schema: { type: 'object', required: ['env'] } } },
      }),
    );
    const res = await svc(
      'objects',
      'register',
      '--data',
      `@${file}`,
      '--event',
      'rolled.back',
      '--url',
      'http://127.0.0.1:9/hook',
    );
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/events\s+deployed, rolled\.back/);
    expect(res.stdout).toMatch(/receiver\s+url http:\/\/127\.0\.0\.1:9\/hook/);
    expect(res.stdout).toMatch(/publish token\s+svc_pub_/);
    expect(res.stdout).toMatch(/signing secret\s+whsec_/);
    expect(res.stdout).toMatch(/shown once/);
    // The daemon's refusal of data outside the schema is one line, exit 1.
    const id = /id\s+(obj_\S+)/.exec(res.stdout)![1]!;
    const bad = await svc('objects', 'publish', id, 'deployed', '--data', '{}');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/data/);
  });

  it('an argv receiver runs the program after -- with each delivery on stdin', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-cli-o-run-'));
    try {
      const out = join(dir, 'got.json');
      const res = await svc(
        'objects',
        'register',
        '--json',
        '--name',
        'runner',
        '--event',
        'go',
        '--cwd',
        dir,
        '--',
        process.execPath,
        '-e',
        "require('fs').writeFileSync('got.json', require('fs').readFileSync(0))",
      );
      expect(res.code, res.stderr).toBe(0);
      const obj = JSON.parse(res.stdout);
      expect(obj.receiver).toEqual({
        kind: 'argv',
        argv: [
          process.execPath,
          '-e',
          "require('fs').writeFileSync('got.json', require('fs').readFileSync(0))",
        ],
        cwd: dir,
      });
      const sent = await jsonOf('objects', 'publish', obj.id, 'go', '--data', '[1,2]');
      const deadline = Date.now() + 10_000;
      let text = '';
      while (Date.now() < deadline) {
        try {
          text = readFileSync(out, 'utf8');
          if (text !== '') break;
        } catch {}
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(JSON.parse(text)).toMatchObject({
        seq: sent.seq,
        payload: { event: 'go', data: [1, 2], delivery_id: sent.delivery_id },
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('bad usage exits 2 before any request', async () => {
    const cases: [string[], RegExp][] = [
      [['objects', 'get', 'cron_01ARZ3NDEKTSV4RRFFQ69G5FAV'], /object id must be obj_/],
      [['objects', 'register', '--name', 'x'], /events/],
      [['objects', 'register', '--event', 'ok'], /name/],
      [['objects', 'register', '--name', 'x', '--event', 'Bad'], /--event must be/],
      [
        [
          'objects',
          'register',
          '--name',
          'x',
          '--event',
          'a',
          '--url',
          'http://x.test',
          '--',
          'prog',
        ],
        /either --url or a program/,
      ],
      [['objects', 'register', '--name', 'x', '--event', 'a', '--cwd', '/tmp'], /--cwd/],
      [['objects', 'register', '--name', 'x', '--event', 'a', '--url', 'ftp://x'], /receiver\.url/],
      [['objects', 'register', '--data', '[1]'], /JSON object/],
      [['objects', 'publish', 'obj_x', 'ev'], /object id must be obj_/],
      [
        ['objects', 'publish', 'obj_01ARZ3NDEKTSV4RRFFQ69G5FAV', 'ev', '-d', '{nope'],
        /not valid JSON/,
      ],
      [['objects', 'ack', 'obj_01ARZ3NDEKTSV4RRFFQ69G5FAV', 'nope'], /delivery id must be dlv_/],
      [['objects', 'receive', 'obj_01ARZ3NDEKTSV4RRFFQ69G5FAV', '--count', '0'], /--count/],
      [['objects', 'receive', 'obj_01ARZ3NDEKTSV4RRFFQ69G5FAV', '--after', 'x'], /--after/],
      [['objects', 'ls', '--limit', '500'], /--limit/],
    ];
    for (const [args, message] of cases) {
      const res = await offline(...args);
      expect(res.code, `${args.join(' ')}: ${res.stderr}`).toBe(2);
      expect(res.stderr).toMatch(message);
      expect(res.stderr.trim().split('\n')).toHaveLength(1);
    }
  });
});
