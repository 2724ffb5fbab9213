/**
 * The sandbox's `/etc` (src/sandbox/system.ts): a tmpfs of its own holding copies of the files
 * programs read to run and binds of their directories, read-only once made, through real
 * bubblewrap on a real daemon: it reads as the host's, nothing in it can be written or added,
 * `shadow` is absent, and a scope on a directory under `/etc` still binds there.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bash,
  createNode,
  isFinal,
  scripted,
  submit,
  toolResults,
  waitForNode,
} from '../broker-fixtures.ts';
import { json, startTestDaemon, type TestDaemon } from '../helpers.ts';

/** A directory under `/etc` that the sandbox's own list leaves out, to be bound by a scope. */
const scoped = ['apt', 'default', 'init.d', 'security', 'skel']
  .map((name) => `/etc/${name}`)
  .find((path) => existsSync(path) && statSync(path).isDirectory() && readdirSync(path).length > 0);

let d: TestDaemon;
let token: string;

beforeAll(async () => {
  d = await startTestDaemon();
  const scopes = [
    'svc:llm',
    'svc:act',
    ...(scoped === undefined ? [] : [`svc:files:read:user:${scoped}`]),
  ];
  ({ token } = await d.appToken(scopes));
});

afterAll(async () => {
  await d?.stop();
});

async function run(command: string) {
  const res = await d.call('/v1/bash', { ...json({ command, cwd: '/tmp' }), token });
  expect(res.status).toBe(200);
  return (await res.json()) as { exit_code: number; stdout: string; stderr: string };
}

describe("the sandbox's /etc", () => {
  it("reads as the host's: its files' content, its directories", async () => {
    const r = await run(
      'cat /etc/passwd; echo ---; cat /etc/hostname; test -d /etc/ssl && echo ssl',
    );
    expect(r.exit_code).toBe(0);
    expect(r.stdout).toBe(
      `${readFileSync('/etc/passwd', 'utf8')}---\n${readFileSync('/etc/hostname', 'utf8')}ssl\n`,
    );
  });

  it('can be neither written nor added to, and holds no shadow', async () => {
    const r = await run(
      'echo x >> /etc/passwd; touch /etc/added; mkdir /etc/sub; test -e /etc/shadow && echo SHADOW; cat /etc/passwd | wc -c',
    );
    expect(r.stderr.match(/Read-only file system/g)?.length).toBe(3);
    expect(r.stdout.trim()).toBe(String(readFileSync('/etc/passwd').length));
  });

  it.runIf(existsSync('/etc/ssl/private'))(
    'shows /etc/ssl without its private keys, the rest of it as the host has it',
    async () => {
      const r = await run(
        'test -e /etc/ssl/private && echo KEYS; ls -A /etc/ssl; ls /etc/ssl/certs | wc -l',
      );
      expect(r.exit_code).toBe(0);
      const shown = readdirSync('/etc/ssl').filter((name) => name !== 'private');
      const certs = readdirSync('/etc/ssl/certs').filter((name) => !name.startsWith('.'));
      expect(r.stdout).toBe(`${shown.sort().join('\n')}\n${certs.length}\n`);
    },
  );

  it.runIf(scoped !== undefined)('binds a scope on a directory under it', async () => {
    const r = await run(`ls ${scoped}`);
    expect(r.exit_code).toBe(0);
    expect(r.stdout.split('\n').filter(Boolean).sort()).toEqual(readdirSync(scoped!).sort());
  });

  it("is the same in a node's own sandbox", async () => {
    const node = await createNode(d.call, {
      task: 'read etc',
      model: scripted('etc', [bash('cat /etc/hostname; touch /etc/added'), submit({})]),
    });
    await waitForNode(d.call, node.id, isFinal);
    const [result] = await toolResults(d.call, node.id, 1);
    const output = result?.output as { stdout: string; stderr: string };
    expect(output.stdout).toBe(readFileSync('/etc/hostname', 'utf8'));
    expect(output.stderr).toMatch(/Read-only file system/);
  });
});
