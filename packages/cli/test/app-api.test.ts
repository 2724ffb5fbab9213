/**
 * `svc upload`, `svc attachment link`, `svc share` and `svc question` against a real daemon
 * (brokers on the scripted model), in-process, as the owner or as an app (`SVC_TOKEN`); and
 * their usage errors, refused before anything is sent (exit 2 on a home with no daemon, not 3).
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalClient } from '@svc/client/node';
import { type DaemonHandle, startDaemon } from '@svc/daemon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inProcessSvc } from './support.ts';

let home: string;
let work: string;
let daemon: DaemonHandle;
let appToken: string;
let env: Record<string, string> = {};
const noDaemon = mkdtempSync(join(tmpdir(), 'svc-cli-a-none-'));

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'svc-cli-a-'));
  work = realpathSync(mkdtempSync(join(tmpdir(), 'svc-cli-aw-')));
  daemon = await startDaemon({ home, logLevel: 'warn', brokers: { concurrency: 1 } });
});
afterAll(async () => {
  await daemon.close();
  for (const dir of [home, work, noDaemon]) rmSync(dir, { recursive: true, force: true });
});

const svc = inProcessSvc(
  () => home,
  () => env,
);
const offline = inProcessSvc(() => noDaemon);

async function ok(...args: string[]) {
  const res = await svc(...args);
  expect(res.code, `${args.join(' ')}: ${res.stderr}`).toBe(0);
  return res;
}

async function usage(args: string[], message: RegExp) {
  const res = await offline(...args);
  expect(res.code, `${args.join(' ')}: ${res.stderr}`).toBe(2);
  expect(res.stdout).toBe('');
  expect(res.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(res.stderr).toMatch(message);
}

describe('svc upload and svc attachment link', () => {
  it('uploads a file, links it once the TCP listener is on, and the link serves it', async () => {
    const file = join(work, 'report.txt');
    writeFileSync(file, 'quarterly numbers\n');
    const shown = await ok('upload', file, '--type', 'text/plain');
    expect(shown.stdout).toMatch(/^id\s+upl_/m);
    expect(shown.stdout).toMatch(/filename\s+report.txt/);
    expect(shown.stdout).toMatch(/size\s+18 bytes/);
    // The type comes from the (stored) file name; a name that says nothing leaves the default.
    const up = JSON.parse((await ok('upload', file, '--name', 'q3.txt', '--json')).stdout);
    expect(up).toMatchObject({ filename: 'q3.txt', media_type: 'text/plain' });
    const pdf = JSON.parse((await ok('upload', file, '--name', 'Q3.PDF', '--json')).stdout);
    expect(pdf).toMatchObject({ media_type: 'application/pdf' });
    const bare = JSON.parse((await ok('upload', file, '--name', 'notes', '--json')).stdout);
    expect(bare).toMatchObject({ media_type: 'application/octet-stream' });

    const off = await svc('attachment', 'link', up.id);
    expect(off.code).toBe(1);
    expect(off.stderr).toMatch(/TCP listener is off.*invalid_state/);

    await daemon.enableTcp({ host: '127.0.0.1', port: 0 });
    const linked = await ok('attachment', 'link', up.id, '--ttl', '10m');
    const url = linked.stdout.trim();
    expect(url.startsWith(`${daemon.tcp!.base_url}/v1/attachments/${up.id}/content?`)).toBe(true);
    expect(linked.stderr).toMatch(/^svc: the link works until \d{4}-/);
    const res = await fetch(url);
    expect(await res.text()).toBe('quarterly numbers\n');
    const json = JSON.parse((await ok('attachment', 'link', up.id, '--json')).stdout);
    expect(Object.keys(json).sort()).toEqual(['expires_at', 'url']);
  });

  it('refuses bad usage before sending anything', async () => {
    const big = join(work, 'big.bin');
    writeFileSync(big, Buffer.alloc(1024 * 1024 + 1));
    await usage(['upload', big], /is 1048577 bytes; an upload takes at most 1048576/);
    await usage(['upload', join(work, 'missing.txt')], /cannot read .*missing.txt \(ENOENT\)/);
    // A device is never read: it would never end.
    await usage(['upload', '/dev/zero'], /^svc: \/dev\/zero is not a regular file\n$/);
    await usage(['upload', big, '--name', 'a/b'], /--name must be a file name/);
    await usage(['upload', big, '--type', 'text'], /--type must be a media type/);
    await usage(['attachment', 'link', 'upl_nope'], /upload id must be upl_ followed by 26/);
    await usage(
      ['attachment', 'link', 'upl_01ARZ3NDEKTSV4RRFFQ69G5FAV', '--ttl', '2h'],
      /--ttl must be at most 1h/,
    );
  });
});

describe('svc share', () => {
  it('add, ls and rm; the app reads the shared path through svc files while it lasts', async () => {
    const dir = join(work, 'shared');
    mkdirSync(dir);
    writeFileSync(join(dir, 'note.txt'), 'for the app');
    const owner = createLocalClient({ home });
    const app = await owner.request<{ token: string }>('POST', '/v1/connect', {
      app_id: 'notes',
      scopes: ['svc:llm', 'svc:act'],
    });
    env = { SVC_TOKEN: app.token };
    expect((await svc('files', 'read', join(dir, 'note.txt'))).code).toBe(1);
    env = {};

    const made = JSON.parse(
      (await ok('share', 'add', 'notes', dir, '--mode', 'rw', '--expires-in', '1h', '--json'))
        .stdout,
    );
    expect(made).toMatchObject({ app_id: 'notes', path: dir, mode: 'rw', created_by: null });
    const ls = await ok('share', 'ls');
    expect(ls.stdout).toMatch(/ID\s+APP\s+MODE\s+EXPIRES\s+BY\s+PATH/);
    expect(ls.stdout).toContain(`${made.id}  notes  rw`);
    expect((await ok('share', 'ls', '--app', 'other')).stdout.trim()).toBe('no shares');

    env = { SVC_TOKEN: app.token };
    expect((await ok('files', 'read', join(dir, 'note.txt'))).stdout).toBe('for the app');
    const mine = JSON.parse((await ok('share', 'ls', '--json')).stdout);
    expect(mine.data.map((s: { id: string }) => s.id)).toEqual([made.id]);
    const refused = await svc('share', 'rm', made.id);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/only its creator or the owner can end it \(forbidden/);
    env = {};

    expect((await ok('share', 'rm', made.id)).stdout).toBe(`deleted ${made.id}\n`);
    env = { SVC_TOKEN: app.token };
    expect((await svc('files', 'read', join(dir, 'note.txt'))).code).toBe(1);
    env = {};
  });

  it('refuses bad usage before sending anything', async () => {
    await usage(['share', 'add', 'Notes!', '/tmp'], /app must be a lowercase letter/);
    await usage(['share', 'add', 'notes', '/tmp', '--mode', 'write'], /--mode must be read or rw/);
    await usage(
      ['share', 'add', 'notes', '/tmp', '--expires-in', 'soon'],
      /--expires-in must be a duration/,
    );
    await usage(['share', 'rm', 'shr_x'], /share id must be shr_ followed by 26/);
    await usage(['share', 'ls', '--limit', '500'], /--limit must be at most 200/);
  });
});

describe('svc question', () => {
  it('shows a question a run asked and answers it as the app; the run finishes', async () => {
    const owner = createLocalClient({ home });
    const conn = await owner.request<{ base_url: string; token: string }>('POST', '/v1/connect', {
      app_id: 'asker',
      scopes: ['svc:llm', 'svc:act'],
    });
    appToken = conn.token;
    const app = createLocalClient({ home, token: appToken });
    const run = await app.runs.start({
      task: 'ask, then finish',
      model: {
        provider: 'scripted',
        model: 'asker',
        script: [
          {
            tool_calls: [
              { name: 'ask_human', input: { title: 'Ship it?', body: '', kind: 'approval' } },
            ],
          },
          { tool_calls: [{ name: 'submit', input: { result: { shipped: true } } }] },
        ],
      },
    });
    let questionId: string | undefined;
    const deadline = Date.now() + 15_000;
    while (questionId === undefined && Date.now() < deadline) {
      const page = await app.runs.events(run.id, { kinds: 'run.question' });
      questionId = (page.data[0]?.payload as { question_id?: string } | undefined)?.question_id;
      if (questionId === undefined) await new Promise((r) => setTimeout(r, 25));
    }
    expect(questionId).toMatch(/^q_/);

    const shown = await ok('question', 'show', questionId!);
    expect(shown.stdout).toMatch(/state\s+open/);
    expect(shown.stdout).toMatch(/options\s+approve, reject/);
    expect(shown.stdout).toContain(run.id);
    const viaGet = JSON.parse((await ok('question', 'get', questionId!, '--json')).stdout);
    expect(viaGet).toMatchObject({ id: questionId, kind: 'approval', state: 'open' });

    env = { SVC_TOKEN: appToken };
    const wrong = await svc('question', 'answer', questionId!, '--choice', 'maybe');
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/choice must be one of: approve, reject \(validation_failed/);
    const answered = await ok(
      'question',
      'answer',
      questionId!,
      '--choice',
      'approve',
      '--text',
      'go',
    );
    expect(answered.stdout).toBe(`answered ${questionId}: approve — go\n`);
    const again = await svc('question', 'answer', questionId!, '--choice', 'reject');
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/invalid_state/);
    env = {};
    const final = await app.runs.wait(run.id, { timeout_s: 15 });
    expect(final.run.state).toBe('done');
  });

  it('refuses bad usage before sending anything', async () => {
    await usage(['question', 'show', 'hr_01ARZ3NDEKTSV4RRFFQ69G5FAV'], /question id must be q_/);
    await usage(
      ['question', 'answer', 'q_01ARZ3NDEKTSV4RRFFQ69G5FAV'],
      /an answer needs --choice, --text or --data/,
    );
    await usage(
      ['question', 'answer', 'q_01ARZ3NDEKTSV4RRFFQ69G5FAV', '--data', '{nope'],
      /--data: the argument is not valid JSON/,
    );
  });
});
