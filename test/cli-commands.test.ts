/**
 * `svc request`, `svc bash`, `svc status`, `svc grant`, `svc events`, `svc sys directory`: real
 * bin, real daemon.
 * Every command's `--json` output parses; every failure is one stderr line.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cleanupHome,
  oneErrorLine,
  SVC_BIN,
  svc,
  svcJson,
  tempHome,
  until,
} from './support/cli.ts';

const home = tempHome();
const work = mkdtempSync('/tmp/svc-e2e-work-');
beforeAll(async () => {
  const started = await svc(home, ['daemon', 'start']);
  if (started.code !== 0) throw new Error(started.stderr);
});
afterAll(async () => {
  await cleanupHome(home);
  rmSync(work, { recursive: true, force: true });
});

describe('svc request (the raw escape hatch)', () => {
  it('GET /v1/status --json prints the raw answer', async () => {
    const status = await svcJson(home, ['request', 'GET', '/v1/status']);
    expect(status).toMatchObject({ status: 'ready', home });
  });

  it('sends a body from --data, @file and stdin-less inline JSON', async () => {
    const file = join(work, 'connect.json');
    writeFileSync(file, JSON.stringify({ app_id: 'from-file', scopes: ['svc:llm'] }));
    const answer = await svcJson(home, ['request', 'post', '/v1/connect', '--data', `@${file}`]);
    expect(answer).toMatchObject({ app_id: 'from-file', scopes: ['svc:llm'] });
  });

  it('maps a daemon error to one line with its code and request id', async () => {
    const run = await svc(home, ['request', 'GET', '/v1/nope']);
    expect(run.code).toBe(1);
    expect(oneErrorLine(run)).toMatch(/^svc: .+ \(not_found, request [A-Za-z0-9._:-]+\)$/);
  });

  it.each([
    [['request', 'FETCH', '/v1/status'], /method must be one of/],
    [['request', 'GET', 'v1/status'], /path must start with \//],
    [['request', 'GET', '/v1/status', '--data', '{}'], /GET request has no body/],
    [['request', 'POST', '/v1/connect', '--data', '{bad'], /not valid JSON/],
  ])('refuses %j before sending (exit 2)', async (args, message) => {
    const run = await svc(home, args);
    expect(run.code).toBe(2);
    expect(oneErrorLine(run)).toMatch(message);
  });
});

describe('svc bash', () => {
  it("prints the command's stdout and stderr and exits with its code", async () => {
    const run = await svc(home, [
      'bash',
      '--cwd',
      work,
      '--',
      'sh',
      '-c',
      'echo out; echo err >&2; exit 7',
    ]);
    expect(run).toEqual({ code: 7, stdout: 'out\n', stderr: 'err\n' });
  });

  it('runs one argument as shell text in the given directory', async () => {
    const run = await svc(home, ['bash', '--cwd', work, '--', 'pwd && echo a | tr a b']);
    expect(run).toEqual({ code: 0, stdout: `${work}\nb\n`, stderr: '' });
  });

  it('under --json prints the result and still exits with the code', async () => {
    const run = await svc(home, ['bash', '--json', '--cwd', work, '--', 'exit 3']);
    expect(run.code).toBe(3);
    expect(JSON.parse(run.stdout)).toMatchObject({ exit_code: 3, signal: null, truncated: false });
  });

  it('a command killed by a signal exits 128 + the signal number', async () => {
    const run = await svc(home, ['bash', '--cwd', work, '--', 'kill -TERM $$']);
    expect(run.code).toBe(128 + 15);
  });

  it('a missing working directory is the daemon answer, one line', async () => {
    const run = await svc(home, ['bash', '--cwd', join(work, 'missing'), '--', 'true']);
    expect(run.code).toBe(1);
    expect(oneErrorLine(run)).toMatch(/\(invalid_request, request \S+\)$/);
  });
});

describe('--json parses for every command', () => {
  it.each([
    [['status'], { status: { status: 'ready' }, readiness: { providers: expect.any(Array) } }],
    [['grant'], { kind: 'owner', scopes: null }],
    [['daemon', 'status'], { status: 'ready', home }],
    [['sys', 'connect'], { token: expect.stringMatching(/^svc_owner_/) }],
    [
      ['sys', 'tokens', 'list'],
      { data: expect.arrayContaining([expect.objectContaining({ kind: 'owner' })]) },
    ],
    [['request', 'GET', '/v1/grant'], { kind: 'owner' }],
    [['sys', 'directory', 'keys'], { keys: [{ state: 'active' }, { state: 'next' }] }],
    [['bash', '--cwd', work, '--', 'true'], { exit_code: 0, stdout: '' }],
  ])('svc %j --json', async (args, expected) => {
    expect(await svcJson(home, args)).toMatchObject(expected);
  });

  it('streams (events, daemon logs) print one JSON document per line', async () => {
    for (const args of [['events'], ['daemon', 'logs', '-n', '5']]) {
      const run = await svc(home, [...args, '--json']);
      expect(run.code, run.stderr).toBe(0);
      const lines = run.stdout.trim().split('\n');
      expect(lines.length).toBeGreaterThan(0);
      for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
    }
  });
});

describe('svc sys directory', () => {
  it('rotate signs with the next key and keeps the old one published; --revoke-previous keeps none', async () => {
    const before = (await svcJson(home, ['sys', 'directory', 'keys'])) as {
      keys: { kid: string }[];
    };
    const rotated = await svc(home, ['sys', 'directory', 'rotate']);
    expect(rotated.code, rotated.stderr).toBe(0);
    // The table: the old next key now active, a new next, the old active retiring.
    const rows = rotated.stdout.trim().split('\n').slice(1);
    expect(rows.map((row) => row.split(/\s+/).slice(0, 2))).toEqual([
      [before.keys[1]?.kid, 'active'],
      [expect.any(String), 'next'],
      [before.keys[0]?.kid, 'retiring'],
    ]);
    const revoked = (await svcJson(home, ['sys', 'directory', 'rotate', '--revoke-previous'])) as {
      keys: { kid: string; state: string }[];
    };
    expect(revoked.keys.map((key) => key.state)).toEqual(['active', 'next']);
    const kids = revoked.keys.map((key) => key.kid);
    for (const old of before.keys) expect(kids).not.toContain(old.kid);
  });
});

describe('svc events', () => {
  it('prints the backlog in order and filters by --after and --kinds', async () => {
    await svcJson(home, ['sys', 'connect', '--app', 'evt', '--scopes', 'svc:llm']);
    const all = (await svc(home, ['events', '--json'])).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const seqs = all.map((e: { seq: number }) => e.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    const after = (await svc(home, ['events', '--after', String(seqs[1]), '--json'])).stdout
      .trim()
      .split('\n');
    expect(JSON.parse(after[0]!).seq).toBe(seqs[2]);
    const created = (await svc(home, ['events', '--kinds', 'token.created', '--json'])).stdout
      .trim()
      .split('\n');
    for (const line of created) expect(JSON.parse(line).kind).toBe('token.created');
    const human = await svc(home, ['events']);
    expect(human.stdout).toMatch(/^\s+\d+ {2}\S+ {2}token\.created/m);
  });
});

describe('svc events --follow', () => {
  it('prints new events live, after the backlog asked for with --since, until stopped', async () => {
    // A follow starts now unless told to reach back (packages/cli/test/events.test.ts).
    const child = spawn(
      process.execPath,
      [SVC_BIN, '--home', home, 'events', '--follow', '--since', '1', '--json'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    try {
      await until(() => stdout.includes('"daemon.started"'), 15_000);
      const minted = await svcJson<{ token_id: string }>(home, [
        'sys',
        'connect',
        '--app',
        'live',
        '--scopes',
        'svc:llm',
      ]);
      await until(() => stdout.includes(minted.token_id), 10_000);
      const events = stdout
        .trim()
        .split('\n')
        .map(
          (line) => JSON.parse(line) as { seq: number; kind: string; subject_id: string | null },
        );
      const seqs = events.map((e) => e.seq);
      expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => seqs[0]! + i));
      expect(events.at(-1)).toMatchObject({ kind: 'token.created', subject_id: minted.token_id });
    } finally {
      child.kill('SIGTERM');
    }
  });
});

describe('usage and failures', () => {
  it.each([
    [['frobnicate']],
    [['daemon', 'start', '--tcp', 'nope']],
    [['sys', 'connect', '--expires-in', 'soon']],
    [['events', '--after', '-1']],
    [['status', '--bogus']],
  ])('svc %j is a usage error: exit 2, one line', async (args) => {
    const run = await svc(home, args);
    expect(run.code).toBe(2);
    oneErrorLine(run);
  });

  it('a home with no daemon fails fast and says how to start one', async () => {
    const empty = tempHome();
    try {
      for (const args of [['status'], ['grant'], ['request', 'GET', '/v1/status'], ['events']]) {
        const run = await svc(empty, args);
        expect(run.code).toBe(3);
        expect(oneErrorLine(run)).toMatch(/not running.*svc daemon start/);
      }
    } finally {
      await cleanupHome(empty);
    }
  });

  it('--help and --version succeed', async () => {
    const help = await svc(home, ['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/Usage: svc/);
    expect((await svc(home, ['--version'])).stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });
});
