/** `svc memory ls|get|put|rm` against a real daemon; usage errors before any request (exit 2). */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalClient } from '@svc/client/node';
import { type DaemonHandle, startDaemon } from '@svc/daemon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inProcessSvc, spawnSvc } from './support.ts';

let home: string;
let daemon: DaemonHandle;
let appToken = '';
const noDaemon = mkdtempSync(join(tmpdir(), 'svc-cli-m-none-'));

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'svc-cli-m-'));
  daemon = await startDaemon({ home, logLevel: 'warn' });
  const owner = createLocalClient({ home, maxRetries: 0 });
  const minted = await owner.request<{ token: string }>('POST', '/v1/connect', {
    app_id: 'cli-app',
    scopes: ['svc:llm'],
  });
  appToken = minted.token;
});
afterAll(async () => {
  await daemon.close();
  for (const dir of [home, noDaemon]) rmSync(dir, { recursive: true, force: true });
});

const svc = inProcessSvc(() => home);
const asApp = inProcessSvc(
  () => home,
  () => ({ SVC_TOKEN: appToken }),
);
const offline = inProcessSvc(() => noDaemon);

describe('svc memory', () => {
  it('put --data, get, ls and rm', async () => {
    const put = await svc(
      'memory',
      'put',
      'prefs/food.md',
      '--data',
      'tea, not coffee\n',
      '--kind',
      'preference',
      '--privacy',
      'public',
      '--title',
      'Food',
    );
    expect(put).toEqual({
      code: 0,
      stdout: 'wrote user:prefs/food.md (version 1, 16 bytes, public)\n',
      stderr: '',
    });
    expect(await svc('memory', 'get', 'prefs/food.md')).toEqual({
      code: 0,
      stdout: 'tea, not coffee\n',
      stderr: '',
    });
    const doc = JSON.parse((await svc('memory', 'get', 'prefs/food.md', '--json')).stdout);
    expect(doc).toMatchObject({ space: 'user', title: 'Food', kind: 'preference', version: 1 });

    await svc('memory', 'put', 'prefs/health.md', '--data', 'private', '--privacy', 'private');
    const ls = await svc('memory', 'ls', 'prefs/');
    expect(ls.code).toBe(0);
    const [header, ...rows] = ls.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^PATH\s+KIND\s+PRIVACY\s+SIZE\s+VERSION\s+UPDATED\s+TITLE$/);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatch(/^prefs\/food\.md\s+preference\s+public\s+16\s+1\s+just now\s+Food$/);
    const json = JSON.parse((await svc('memory', 'ls', '--json', '--privacy', 'private')).stdout);
    expect(json.data.map((d: { path: string }) => d.path)).toEqual(['prefs/health.md']);

    // An app sees the public document only; the private one is missing to it (exit 1, one line).
    const appLs = JSON.parse((await asApp('memory', 'ls', '--json')).stdout);
    expect(appLs.data.map((d: { path: string }) => d.path)).toEqual(['prefs/food.md']);
    const hidden = await asApp('memory', 'get', 'prefs/health.md');
    expect(hidden.code).not.toBe(0);
    expect(hidden.stderr).toMatch(/not_found|no document/);

    const stale = await svc('memory', 'rm', 'prefs/food.md', '--if-version', '7');
    expect(stale.code).not.toBe(0);
    expect(stale.stderr).toMatch(/version 1/);
    expect(await svc('memory', 'rm', 'prefs/food.md', '--if-version', '1')).toEqual({
      code: 0,
      stdout: 'deleted user:prefs/food.md\n',
      stderr: '',
    });
    expect((await svc('memory', 'get', 'prefs/food.md')).code).not.toBe(0);
  });

  it('ls pages with --limit and --after, and says where to go on', async () => {
    for (const name of ['a', 'b', 'c']) {
      await svc('memory', 'put', `${name}.md`, '--space', 'app:pager', '--data', name);
    }
    const first = await svc('memory', 'ls', '--space', 'app:pager', '--limit', '2');
    expect(first.stdout).toContain('a.md');
    expect(first.stderr).toBe('svc: more documents follow; list on with --after b.md\n');
    const next = await svc('memory', 'ls', '--space', 'app:pager', '--after', 'b.md', '--json');
    expect(JSON.parse(next.stdout)).toMatchObject({ data: [{ path: 'c.md' }], has_more: false });
  });

  it('put reads --from a file, or stdin', async () => {
    const file = join(home, 'note.md');
    writeFileSync(file, '# from a file\n');
    const fromFile = await svc('memory', 'put', 'notes/file.md', '--from', file, '--json');
    expect(JSON.parse(fromFile.stdout)).toMatchObject({ content: '# from a file\n', size: 14 });
    const piped = await spawnSvc(home, ['memory', 'put', 'notes/stdin.md', '--space', 'app:x'], {
      input: 'from stdin',
    });
    expect(piped).toMatchObject({
      code: 0,
      stdout: 'wrote app:x:notes/stdin.md (version 1, 10 bytes, private)\n',
    });
    expect((await svc('memory', 'get', 'notes/stdin.md', '--space', 'app:x')).stdout).toBe(
      'from stdin\n',
    );
  });

  it('refuses content over 256 KiB from a file or stdin without reading it all', async () => {
    const big = join(noDaemon, 'big.md');
    writeFileSync(big, 'x'.repeat(262_145));
    expect(await offline('memory', 'put', 'a.md', '--from', big)).toEqual({
      code: 2,
      stdout: '',
      stderr: `svc: --from: ${big} is 262145 bytes; a document holds at most 262144 (256 KiB)\n`,
    });
    expect(await offline('memory', 'put', 'a.md', '--from', '/dev/zero')).toMatchObject({
      code: 2,
      stderr: 'svc: --from: /dev/zero is not a regular file\n',
    });
    const piped = await spawnSvc(noDaemon, ['memory', 'put', 'a.md'], {
      input: 'x'.repeat(300_000),
    });
    expect(piped).toMatchObject({
      code: 2,
      stderr:
        'svc: the content on stdin is more than 262144 bytes; a document holds at most 262144 (256 KiB)\n',
    });
  });

  it('refuses bad arguments before any request (exit 2)', async () => {
    for (const args of [
      ['memory', 'get', '/abs.md'],
      ['memory', 'get', 'a/../b'],
      ['memory', 'get', 'a.md', '--space', 'users'],
      ['memory', 'ls', '--kind', 'note'],
      ['memory', 'ls', '--privacy', 'secret'],
      ['memory', 'ls', '--limit', '201'],
      ['memory', 'put', 'a.md', '--data', 'x', '--from', 'f'],
      ['memory', 'put', 'a.md', '--data', 'x', '--if-version', '-1'],
      ['memory', 'put', 'a.md', '--data', 'x'.repeat(262_145)],
      ['memory', 'rm', 'a//b.md'],
    ]) {
      const res = await offline(...args);
      expect(res.code, args.join(' ')).toBe(2);
      expect(res.stderr, args.join(' ')).toMatch(/^svc: /);
    }
  });
});
