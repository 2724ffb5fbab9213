/**
 * The files routes fence what every sandbox hides, as they fence `SVC_HOME`: the person's secret
 * stores, svc's cache (the sandbox's launcher and executor, built there and run unconfined by
 * the daemon and its agent hosts) and the daemon's private temporary directory (the seccomp
 * filter every sandbox loads). A grant of `~` or `/tmp` reaches none of them; only the owner's
 * token does. HOME is a fresh directory, so nothing here touches the real `~/.cache` or `~/.ssh`.
 */
import { mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Response } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRIVATE_TMP_ENV, privateTmp } from '../src/sandbox/private-tmp.ts';
import { seccompFile } from '../src/sandbox/seccomp.ts';
import {
  envelope,
  json,
  rawRequest,
  scratchDirs,
  startTestDaemon,
  type TestDaemon,
} from './helpers.ts';

const scratch = scratchDirs('svcd-fence-');
// Read by the sandbox settings at the daemon's start: the person's home, and the cache under it.
const person = realpathSync(scratch());
process.env.HOME = person;
delete process.env.XDG_CACHE_HOME;
const cache = join(person, '.cache', 'svc');
const launcher = join(cache, 'sandbox-launcher-0123456789abcdef');
const LAUNCHER = '#!/bin/sh\nexec the-real-launcher "$@"\n';
const key = join(person, '.ssh', 'id_ed25519');
const KEY = '-----BEGIN OPENSSH PRIVATE KEY-----\nthe person\n';

let t: TestDaemon;
beforeAll(async () => {
  t = await startTestDaemon({ tcp: { host: '127.0.0.1', port: 0 } });
  // Made by the daemon's start (the executor's cache), as on any host.
  writeFileSync(launcher, LAUNCHER, { mode: 0o755 });
  mkdirSync(join(person, '.ssh'), { mode: 0o700 });
  writeFileSync(key, KEY, { mode: 0o600 });
});
afterAll(() => t.stop());

const q = (path: string) => `path=${encodeURIComponent(path)}`;
const peek = (path: string, token?: string) =>
  t.call(`/v1/files/peek?${q(path)}`, token === undefined ? {} : { token });
const list = (path: string, token?: string) =>
  t.call(`/v1/files/list?${q(path)}`, token === undefined ? {} : { token });
const write = (path: string, content: string, token?: string) =>
  t.call('/v1/files/write', {
    ...json({ path, content }),
    ...(token === undefined ? {} : { token }),
  });

/** An app token with read-write over `dir`, and `svc:act`. */
const rwOver = async (dir: string) =>
  (await t.appToken(['svc:llm', 'svc:act', `svc:files:rw:user:${dir}`])).token;

/** As a fenced `SVC_HOME` path answers: 403 `forbidden` on `path`, saying nothing of it. */
async function expectFenced(res: Response, what: string) {
  expect(res.status, what).toBe(403);
  const body = await envelope(res);
  expect(body, what).toMatchObject({ code: 'forbidden', field: 'path' });
  expect(body.message, what).not.toContain(LAUNCHER);
  expect(body.message, what).not.toContain(KEY);
}

describe("svc's cache", () => {
  it('an app token with rw over the home can neither list, read nor write it; its other paths and the owner can', async () => {
    const token = await rwOver(person);
    await expectFenced(await list(cache, token), 'list');
    await expectFenced(await peek(launcher, token), 'peek');
    await expectFenced(await write(launcher, '#!/bin/sh\ncat owner.token\n', token), 'write');
    await expectFenced(await write(join(cache, 'planted'), 'x', token), 'new file');
    expect(readFileSync(launcher, 'utf8')).toBe(LAUNCHER);
    // The rest of the grant stays as it was: the home, and `.cache` beside svc's.
    const note = join(person, 'notes.txt');
    expect((await write(note, 'mine', token)).status).toBe(200);
    expect((await peek(note, token)).status).toBe(200);
    expect((await write(join(person, '.cache', 'other.txt'), 'x', token)).status).toBe(200);
    const home = (await (await list(person, token)).json()) as { entries: { name: string }[] };
    expect(home.entries.map((e) => e.name)).toContain('notes.txt');
    // The owner's token is the person.
    const owned = (await (await list(cache)).json()) as { entries: { name: string }[] };
    expect(owned.entries.map((e) => e.name)).toContain('sandbox-launcher-0123456789abcdef');
    expect((await peek(launcher)).status).toBe(200);
  });

  it('is fenced where a link inside the grant leads, and the refusal does not say where', async () => {
    const token = await rwOver(person);
    symlinkSync(cache, join(person, 'to-cache'));
    const res = await write(
      join(person, 'to-cache', 'sandbox-launcher-0123456789abcdef'),
      'x',
      token,
    );
    expect(res.status).toBe(403);
    expect((await envelope(res)).message).not.toContain('.cache');
    expect(readFileSync(launcher, 'utf8')).toBe(LAUNCHER);
  });
});

describe('secret stores', () => {
  it("an app token with rw over the home reads no key, present or not; the owner's token does", async () => {
    const token = await rwOver(person);
    await expectFenced(await peek(key, token), 'key');
    await expectFenced(await peek(join(person, '.ssh', 'id_rsa'), token), 'missing key');
    await expectFenced(await list(join(person, '.ssh'), token), 'list');
    await expectFenced(await write(join(person, '.aws', 'credentials'), 'x', token), 'new store');
    expect(readFileSync(key, 'utf8')).toBe(KEY);
    const mine = (await (await peek(key)).json()) as { content: string };
    expect(mine.content).toBe(KEY);
  });

  it('a viewer session reads no key either', async () => {
    const link = (await (await t.call('/v1/viewer/links', json({}))).json()) as { url: string };
    const tcp = { host: '127.0.0.1', port: t.daemon.tcp!.port };
    const code = new URL(link.url).searchParams.get('code');
    const login = await rawRequest(tcp, { path: `/viewer/login?code=${code}` });
    expect(login.status).toBe(303);
    const set = login.headers['set-cookie'];
    const cookie = String(Array.isArray(set) ? set[0] : set).split(';')[0]!;
    const page = String(login.headers.location).slice('/viewer/#key='.length);
    const res = await rawRequest(tcp, {
      path: `/v1/files/peek?${q(key)}`,
      headers: { cookie, 'svc-viewer': page },
    });
    expect(res.status).toBe(403);
    expect(JSON.parse(res.body).error).toMatchObject({ code: 'forbidden', field: 'path' });
    expect(res.body).not.toContain(KEY);
  });
});

describe("the daemon's private temporary directory", () => {
  /** `SVC_PRIVATE_TMP` as `value` while `run` runs (read at each request). */
  async function withPrivateTmp(value: string, run: () => Promise<void>) {
    const was = process.env[PRIVATE_TMP_ENV];
    process.env[PRIVATE_TMP_ENV] = value;
    try {
      await run();
    } finally {
      if (was === undefined) delete process.env[PRIVATE_TMP_ENV];
      else process.env[PRIVATE_TMP_ENV] = was;
    }
  }

  it('is fenced whole when it is its own', async () => {
    const parent = realpathSync(scratch());
    const own = join(parent, 'private');
    const filter = join(own, 'svc-seccomp-abc', 'filter.bpf');
    mkdirSync(join(own, 'svc-seccomp-abc'), { recursive: true });
    writeFileSync(filter, 'the filter');
    const token = await rwOver(parent);
    await withPrivateTmp(own, async () => {
      await expectFenced(await write(filter, 'allow everything', token), 'filter');
      await expectFenced(await write(join(own, 'planted'), 'x', token), 'new file');
      expect((await write(join(parent, 'beside'), 'x', token)).status).toBe(200);
    });
    expect(readFileSync(filter, 'utf8')).toBe('the filter');
  });

  it("is a directory of its own in the system's, fenced, and hidden from a command given /tmp", async () => {
    const tmp = realpathSync(tmpdir());
    await withPrivateTmp('', async () => {
      // Where every sandbox of this process loads its seccomp filter from.
      const filter = seccompFile();
      expect(filter).not.toBeNull();
      const own = realpathSync(privateTmp());
      expect(own.startsWith(`${tmp}/svc-private-`)).toBe(true);
      expect(realpathSync(filter!).startsWith(`${own}/`)).toBe(true);
      const before = readFileSync(filter!);
      const token = await rwOver(tmp);
      await expectFenced(await write(filter!, 'allow everything', token), 'filter');
      await expectFenced(await list(own, token), 'list');
      expect((await write(join(realpathSync(scratch()), 'f'), 'x', token)).status).toBe(200);
      // Nor through the token's shell, whose sandbox binds /tmp read-write.
      const ran = await t.call('/v1/bash', {
        ...json({ command: `ls ${own}; echo x > ${filter}`, cwd: tmp }),
        token,
      });
      expect(ran.status).toBe(200);
      expect(((await ran.json()) as { exit_code: number }).exit_code).not.toBe(0);
      expect(readFileSync(filter!)).toEqual(before);
      expect((await list(own)).status).toBe(200);
    });
  });
});
