/** `svc files read|write|list` against a real daemon; usage errors against none (exit 2, not 3). */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type DaemonHandle, startDaemon } from '@svc/daemon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inProcessSvc, spawnSvc } from './support.ts';

const BIN = fileURLToPath(new URL('../bin/svc.js', import.meta.url));
let home: string;
let work: string;
let daemon: DaemonHandle;
const noDaemon = mkdtempSync(join(tmpdir(), 'svc-cli-f-none-'));

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'svc-cli-f-'));
  work = realpathSync(mkdtempSync(join(tmpdir(), 'svc-cli-fw-')));
  daemon = await startDaemon({ home, logLevel: 'warn' });
});
afterAll(async () => {
  await daemon.close();
  for (const dir of [home, work, noDaemon]) rmSync(dir, { recursive: true, force: true });
});

const svc = inProcessSvc(() => home);
const offline = inProcessSvc(() => noDaemon);

/** `svc …args` as a child process, its stdout as bytes. */
function svcBytes(args: string[]): Promise<{ code: number | null; stdout: Buffer }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { ...process.env, SVC_HOME: home, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(chunks) }));
  });
}

describe('svc files', () => {
  it('write --data, read and list', async () => {
    const path = join(work, 'docs', 'a.txt');
    const wrote = await svc('files', 'write', path, '--data', 'hello\n', '--parents');
    expect(wrote).toEqual({ code: 0, stdout: `wrote 6 bytes to ${path}\n`, stderr: '' });
    expect(await svc('files', 'read', path)).toEqual({ code: 0, stdout: 'hello\n', stderr: '' });

    const json = JSON.parse((await svc('files', 'read', path, '--json')).stdout);
    expect(json).toEqual({
      path,
      size: 6,
      offset: 0,
      content: 'hello\n',
      encoding: 'utf8',
      truncated: false,
    });

    const list = await svc('files', 'list', join(work, 'docs'));
    expect(list.code).toBe(0);
    const [header, row] = list.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^TYPE\s+SIZE\s+MODIFIED\s+NAME$/);
    expect(row).toMatch(/^file\s+6\s+just now\s+a\.txt$/); // tables show times relative
    const listed = JSON.parse((await svc('files', 'list', join(work, 'docs'), '--json')).stdout);
    expect(listed).toMatchObject({ entries: [{ name: 'a.txt', type: 'file' }], truncated: false });
  });

  it('read --offset --max-bytes prints the slice and says where to read on', async () => {
    const path = join(work, 'slice.txt');
    writeFileSync(path, 'abcdef');
    const res = await svc('files', 'read', path, '--offset', '1', '--max-bytes', '3');
    expect(res.stdout).toBe('bcd');
    expect(res.stderr).toBe('svc: 3 of 6 bytes shown; read on with --offset 4\n');
  });

  it('write reads stdin without --data, and sends bytes that are not UTF-8 as base64', async () => {
    const text = join(work, 'stdin.txt');
    const piped = await spawnSvc(home, ['files', 'write', text], { input: 'from stdin' });
    expect(piped.code, piped.stderr).toBe(0);
    expect(readFileSync(text, 'utf8')).toBe('from stdin');

    const bytes = Buffer.from([0x00, 0xff, 0xfe, 0x80, 0x41, 0x0a]);
    const source = join(work, 'source.bin');
    writeFileSync(source, bytes);
    const target = join(work, 'copy.bin');
    expect((await svc('files', 'write', target, '--from', source)).code).toBe(0);
    expect(readFileSync(target).equals(bytes)).toBe(true);

    const read = await svcBytes(['files', 'read', target]);
    expect(read.code).toBe(0);
    expect(read.stdout.equals(bytes)).toBe(true);
  });

  it('a daemon refusal is one line and exit 1', async () => {
    const res = await svc('files', 'read', join(work, 'missing.txt'));
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/^svc: .*does not exist \(not_found, request \S+\)\n$/);
  });

  it.each([
    [['files', 'read'], /missing required argument 'path'/],
    [['files', 'read', '/x', '--offset', 'abc'], /--offset must be a whole number/],
    [['files', 'read', '/x', '--max-bytes', '0'], /--max-bytes must be a positive whole number/],
    [['files', 'read', '/x', '--max-bytes', '1048577'], /--max-bytes must be at most 1048576/],
    [['files', 'list', '/x', '--limit', '10001'], /--limit must be at most 10000/],
    [['files', 'write', '/x', '--data', 'a', '--from', '/y'], /--data or --from, not both/],
    [['files', 'write', '/x', '--from', '/no/such/file'], /--from: cannot read \/no\/such\/file/],
    [['files', 'write', '/x', '--from', '/dev/zero'], /--from: \/dev\/zero is not a regular file/],
    [['files', 'nope'], /unknown command 'nope'/],
  ])('svc %j exits 2 before sending anything', async (args, message) => {
    const res = await offline(...args);
    expect(res.code).toBe(2);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(/^svc: [^\n]*\n$/);
    expect(res.stderr).toMatch(message);
  });

  it('refuses content over 1 MiB locally (exit 2)', async () => {
    const big = join(work, 'big.bin');
    writeFileSync(big, Buffer.alloc(1024 * 1024 + 1));
    const res = await offline('files', 'write', '/x', '--from', big);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/at most 1048576/);
  });

  it('stops reading stdin past 1 MiB and says so (exit 2)', async () => {
    const res = await spawnSvc(noDaemon, ['files', 'write', '/x'], {
      input: 'x'.repeat(3 * 1024 * 1024),
    });
    expect(res).toMatchObject({ code: 2, stdout: '' });
    expect(res.stderr).toBe(
      'svc: the content on stdin is more than 1048576 bytes; the daemon takes at most 1048576 (1 MiB)\n',
    );
  });
});
