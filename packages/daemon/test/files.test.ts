import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envelope, json, scratchDirs, startTestDaemon, type TestDaemon } from './helpers.ts';

let t: TestDaemon;
beforeAll(async () => {
  t = await startTestDaemon();
});
afterAll(() => t.stop());

const scratch = scratchDirs('svc-files-');
/** A fresh real directory (no link on the way, so scopes name it as the daemon resolves it). */
const freshDir = () => realpathSync(scratch());

const MiB = 1024 * 1024;
type Slice = {
  path: string;
  size: number;
  offset: number;
  content: string;
  encoding: 'utf8' | 'base64';
  truncated: boolean;
};
type Listing = {
  path: string;
  entries: { name: string; type: string; size: number; modified_at: string }[];
  truncated: boolean;
};

const q = (params: Record<string, string | number>) =>
  new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)])).toString();
const peek = (params: Record<string, string | number>, token?: string) =>
  t.call(`/v1/files/peek?${q(params)}`, token === undefined ? {} : { token });
const list = (params: Record<string, string | number>, token?: string) =>
  t.call(`/v1/files/list?${q(params)}`, token === undefined ? {} : { token });
const write = (body: Record<string, unknown>, token?: string) =>
  t.call('/v1/files/write', token === undefined ? json(body) : { ...json(body), token });
/** Leftovers of a write: its temp files. */
const temps = (dir: string) => readdirSync(dir).filter((n) => n.startsWith('.svc-write-'));

describe('files with the owner token', () => {
  it('writes, reads back and lists', async () => {
    const dir = freshDir();
    const path = join(dir, 'note.txt');
    const wrote = await write({ path, content: 'hello, files\n' });
    expect(wrote.status).toBe(200);
    expect(await wrote.json()).toEqual({ path, size: 13 });
    expect(readFileSync(path, 'utf8')).toBe('hello, files\n');

    const read = await peek({ path });
    expect(read.status).toBe(200);
    expect(await read.json()).toEqual({
      path,
      size: 13,
      offset: 0,
      content: 'hello, files\n',
      encoding: 'utf8',
      truncated: false,
    });

    mkdirSync(join(dir, 'sub'));
    symlinkSync(path, join(dir, 'link'));
    const listed = (await (await list({ path: dir })).json()) as Listing;
    expect(listed.path).toBe(dir);
    expect(listed.truncated).toBe(false);
    expect(listed.entries.map((e) => [e.name, e.type])).toEqual([
      ['link', 'symlink'],
      ['note.txt', 'file'],
      ['sub', 'directory'],
    ]);
    expect(listed.entries[1]).toMatchObject({ size: 13 });
    expect(Date.parse(listed.entries[1]!.modified_at)).toBeGreaterThan(Date.now() - 60_000);
    expect(temps(dir)).toEqual([]);
  });

  it('replaces a file whole, keeping its permissions, and reaches any path', async () => {
    const dir = freshDir();
    const path = join(dir, 'script.sh');
    writeFileSync(path, 'a much longer old content');
    chmodSync(path, 0o750);
    expect((await write({ path, content: 'new' })).status).toBe(200);
    expect(readFileSync(path, 'utf8')).toBe('new');
    expect(statSync(path).mode & 0o777).toBe(0o750);
    // Outside any scope: the owner holds everything.
    const other = await peek({ path: '/etc/hostname' });
    expect(other.status).toBe(200);
  });

  it('refuses a relative path or a NUL byte with 422 naming path', async () => {
    for (const res of [
      await peek({ path: 'relative/file' }),
      await list({ path: 'relative' }),
      await write({ path: 'relative/file', content: 'x' }),
      await peek({ path: '/tmp/a\0b' }),
      await write({ path: '/tmp/a\0b', content: 'x' }),
    ]) {
      expect(res.status).toBe(422);
      expect(await envelope(res)).toMatchObject({ code: 'validation_failed', field: 'path' });
    }
  });

  it('answers 404 for what does not exist; create_parents makes the directories', async () => {
    const dir = freshDir();
    for (const res of [
      await peek({ path: join(dir, 'nope.txt') }),
      await list({ path: join(dir, 'nope') }),
      await write({ path: join(dir, 'a/b/c.txt'), content: 'x' }),
    ]) {
      expect(res.status).toBe(404);
      expect(await envelope(res)).toMatchObject({ code: 'not_found', field: 'path' });
    }
    const made = await write({ path: join(dir, 'a/b/c.txt'), content: 'x', create_parents: true });
    expect(made.status).toBe(200);
    expect(readFileSync(join(dir, 'a/b/c.txt'), 'utf8')).toBe('x');
  });

  it('refuses a directory where a file is meant, and a file where a directory is, with 422', async () => {
    const dir = freshDir();
    writeFileSync(join(dir, 'f'), 'x');
    mkdirSync(join(dir, 'd'));
    const cases = [
      [await peek({ path: join(dir, 'd') }), /is a directory/],
      [await list({ path: join(dir, 'f') }), /is not a directory/],
      [await write({ path: join(dir, 'd'), content: 'x' }), /is a directory/],
      [await write({ path: join(dir, 'f', 'x'), content: 'x' }), /is not a directory/],
    ] as const;
    for (const [res, message] of cases) {
      expect(res.status).toBe(422);
      const error = await envelope(res);
      expect(error).toMatchObject({ code: 'validation_failed', field: 'path' });
      expect(error.message).toMatch(message);
    }
    expect(statSync(join(dir, 'd')).isDirectory()).toBe(true);
  });

  it('never writes over a FIFO or a unix socket (422), and leaves them as they were', async () => {
    const dir = freshDir();
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const socketPath = join(dir, 'live.sock');
    const server = createServer().listen(socketPath);
    await once(server, 'listening');
    try {
      for (const path of [fifo, socketPath]) {
        const res = await write({ path, content: 'x' });
        expect(res.status, path).toBe(422);
        expect(await envelope(res)).toMatchObject({ code: 'validation_failed', field: 'path' });
      }
      expect(lstatSync(fifo).isFIFO()).toBe(true);
      expect(lstatSync(socketPath).isSocket()).toBe(true);
      expect(temps(dir)).toEqual([]);
    } finally {
      server.close();
    }
  });

  it('takes exactly 1 MiB (as base64); refuses 1 MiB + 1 byte with 413, the old file kept', async () => {
    const dir = freshDir();
    const path = join(dir, 'big.bin');
    const full = Buffer.alloc(MiB, 7);
    const ok = await write({ path, content: full.toString('base64'), encoding: 'base64' });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ path, size: MiB });
    expect(readFileSync(path).equals(full)).toBe(true);

    const over = await write({ path, content: 'y'.repeat(MiB + 1) });
    expect(over.status).toBe(413);
    expect(await envelope(over)).toMatchObject({ code: 'payload_too_large', field: 'content' });
    expect(readFileSync(path).equals(full)).toBe(true);
    expect(readdirSync(dir)).toEqual(['big.bin']);

    // A body past the request limit (2 MiB) is refused before it is read as JSON.
    const huge = await write({ path, content: 'z'.repeat(2 * MiB + 10) });
    expect(huge.status).toBe(413);
    expect(await envelope(huge)).toMatchObject({ code: 'payload_too_large' });
    expect(readFileSync(path).equals(full)).toBe(true);
  });

  it('leaves no temp file after a write refused at the rename', async () => {
    const dir = freshDir();
    mkdirSync(join(dir, 'taken'));
    writeFileSync(join(dir, 'taken', 'inner'), 'x');
    for (const name of ['taken', 'empty']) {
      if (name === 'empty') mkdirSync(join(dir, name));
      const res = await write({ path: join(dir, name), content: 'x' });
      expect(res.status).toBe(422);
      expect((await envelope(res)).message).toMatch(/is a directory/);
    }
    expect(readdirSync(dir).sort()).toEqual(['empty', 'taken']);
    expect(readdirSync(join(dir, 'taken'))).toEqual(['inner']);
  });

  it('round-trips binary bytes as base64 and refuses malformed base64', async () => {
    const dir = freshDir();
    const path = join(dir, 'all.bin');
    const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const wrote = await write({ path, content: bytes.toString('base64'), encoding: 'base64' });
    expect(wrote.status).toBe(200);
    expect(readFileSync(path).equals(bytes)).toBe(true);
    const read = (await (await peek({ path })).json()) as Slice;
    expect(read).toMatchObject({ encoding: 'base64', size: 256, truncated: false });
    expect(Buffer.from(read.content, 'base64').equals(bytes)).toBe(true);

    const bad = await write({ path, content: 'not base64!', encoding: 'base64' });
    expect(bad.status).toBe(422);
    expect(await envelope(bad)).toMatchObject({ field: 'content' });
    expect(readFileSync(path).equals(bytes)).toBe(true);
  });

  it('cuts a text slice back to a character boundary and reports truncated', async () => {
    const dir = freshDir();
    const path = join(dir, 'utf8.txt');
    writeFileSync(path, 'aé€z'); // 61 | c3 a9 | e2 82 ac | 7a: 7 bytes
    const first = (await (await peek({ path, max_bytes: 2 })).json()) as Slice;
    expect(first).toMatchObject({ content: 'a', encoding: 'utf8', truncated: true, size: 7 });
    const second = (await (await peek({ path, offset: 1, max_bytes: 4 })).json()) as Slice;
    expect(second).toMatchObject({ content: 'é', encoding: 'utf8', truncated: true, offset: 1 });
    const rest = (await (await peek({ path, offset: 3 })).json()) as Slice;
    expect(rest).toMatchObject({ content: '€z', encoding: 'utf8', truncated: false });
    // Too small for even one character: the bytes, as base64, so a reader still moves on.
    const tiny = (await (await peek({ path, offset: 3, max_bytes: 1 })).json()) as Slice;
    expect(tiny).toMatchObject({ content: Buffer.from([0xe2]).toString('base64') });
    expect(tiny).toMatchObject({ encoding: 'base64', truncated: true });
  });

  it('reports truncated on a read and on a list', async () => {
    const dir = freshDir();
    writeFileSync(join(dir, 'c'), 'hello');
    writeFileSync(join(dir, 'a'), '');
    writeFileSync(join(dir, 'b'), '');
    const read = (await (await peek({ path: join(dir, 'c'), max_bytes: 3 })).json()) as Slice;
    expect(read).toMatchObject({ content: 'hel', truncated: true, size: 5 });
    const whole = (await (await peek({ path: join(dir, 'c'), max_bytes: 5 })).json()) as Slice;
    expect(whole).toMatchObject({ content: 'hello', truncated: false });
    const listed = (await (await list({ path: dir, limit: 2 })).json()) as Listing;
    expect(listed.entries.map((e) => e.name)).toEqual(['a', 'b']);
    expect(listed.truncated).toBe(true);
    const all = (await (await list({ path: dir, limit: 3 })).json()) as Listing;
    expect(all.truncated).toBe(false);
  });

  it('bounds max_bytes and limit (422)', async () => {
    const dir = freshDir();
    for (const res of [
      await peek({ path: dir, max_bytes: MiB + 1 }),
      await peek({ path: dir, max_bytes: 0 }),
      await list({ path: dir, limit: 10_001 }),
    ]) {
      expect(res.status).toBe(422);
    }
  });

  it.skipIf(process.getuid?.() === 0)(
    'answers 403 forbidden where the file system refuses',
    async () => {
      const dir = freshDir();
      const path = join(dir, 'secret');
      writeFileSync(path, 'x');
      chmodSync(path, 0o000);
      const res = await peek({ path });
      expect(res.status).toBe(403);
      expect(await envelope(res)).toMatchObject({ code: 'forbidden', field: 'path' });
      chmodSync(path, 0o600);
    },
  );
});

describe('names that are not UTF-8', () => {
  it('are listed, with U+FFFD for their bad bytes, not dropped', async () => {
    const dir = freshDir();
    writeFileSync(join(dir, 'ok.txt'), 'a');
    writeFileSync(
      Buffer.concat([Buffer.from(`${dir}/`), Buffer.from([0xff]), Buffer.from('.txt')]),
      'b',
    );
    const res = await list({ path: dir });
    const listing = (await res.json()) as Listing;
    expect(listing.entries.map((e) => e.name).sort()).toEqual(['ok.txt', '\uFFFD.txt']);
    expect(listing.truncated).toBe(false);
  });
});

describe('pseudo-files', () => {
  it('a /proc file that fails to read is 422 "not a regular file", not a 500', async () => {
    // Its memory at offset 0 is never mapped: the read fails with EIO.
    const res = await peek({ path: '/proc/self/mem' });
    expect(res.status).toBe(422);
    expect((await envelope(res)).message).toMatch(/not a regular file/);
  });
});

describe('files with an app token: the realpath must lie under a files scope', () => {
  it('a `..` after a missing segment is judged where it lands: outside, 403, not 404', async () => {
    const base = freshDir();
    mkdirSync(join(base, 'in'));
    mkdirSync(join(base, 'out'));
    writeFileSync(join(base, 'in', 'a.txt'), 'a');
    const { token } = await t.appToken(['svc:llm', 'svc:act', `svc:files:rw:user:${base}/in`]);
    for (const path of [
      `${base}/in/missing/../../out/nothere`,
      `${base}/in/a.txt/../../out/secret.txt`,
    ]) {
      const res = await peek({ path }, token);
      expect(res.status, path).toBe(403);
      expect((await envelope(res)).code).toBe('scope_missing');
    }
  });

  it("svc's own home and /proc stay the owner's, whatever a scope covers; worktrees do not", async () => {
    // A grant of the home's parent (as of `~` for a home at `~/.svc`) covers the owner token.
    const home = realpathSync(t.home);
    const parent = join(home, '..');
    const { token } = await t.appToken(['svc:llm', 'svc:act', `svc:files:rw:user:${parent}`]);
    const ownerToken = join(home, 'owner.token');
    for (const res of [
      await peek({ path: ownerToken }, token),
      await peek({ path: join(home, 'svc.db') }, token),
      await list({ path: home }, token),
      await write({ path: ownerToken, content: 'mine now' }, token),
      await write({ path: join(home, 'new-file'), content: 'x' }, token),
      await peek({ path: join(home, 'no-such-file') }, token),
    ]) {
      expect(res.status).toBe(403);
      expect(await envelope(res)).toMatchObject({ code: 'forbidden', field: 'path' });
    }
    expect(readFileSync(ownerToken, 'utf8').trim()).toBe(t.ownerToken);
    // Through a link from inside the scope: judged where it leads, refused, and it says nothing
    // of where that is.
    const dir = freshDir();
    symlinkSync(home, join(dir, 'to-home'));
    const { token: scoped } = await t.appToken([
      'svc:llm',
      'svc:act',
      `svc:files:read:user:${dir}`,
    ]);
    const linked = await peek({ path: join(dir, 'to-home', 'owner.token') }, scoped);
    expect(linked.status).toBe(403);
    expect((await envelope(linked)).message).not.toContain(home);
    // A node's worktree is the node's, and a scope over it reaches it.
    mkdirSync(join(home, 'worktrees', 'nd_fence'), { recursive: true });
    writeFileSync(join(home, 'worktrees', 'nd_fence', 'out.txt'), 'made');
    const made = await peek({ path: join(home, 'worktrees', 'nd_fence', 'out.txt') }, token);
    expect(made.status).toBe(200);
    // /proc holds the daemon's environment, and its brokers'.
    const { token: procs } = await t.appToken(['svc:llm', 'svc:act', 'svc:files:read:user:/proc']);
    const environ = await peek({ path: '/proc/self/environ' }, procs);
    expect(environ.status).toBe(403);
    // The owner reaches both.
    expect((await peek({ path: ownerToken })).status).toBe(200);
  });

  it('svc:act without a files scope is 403 scope_missing naming the scope wanted', async () => {
    const dir = freshDir();
    writeFileSync(join(dir, 'f'), 'x');
    const { token } = await t.appToken(['svc:llm', 'svc:act']);
    const res = await peek({ path: join(dir, 'f') }, token);
    expect(res.status).toBe(403);
    expect(await envelope(res)).toMatchObject({
      code: 'scope_missing',
      field: `svc:files:read:user:${dir}/f`,
      received: ['svc:llm', 'svc:act'],
    });
    const w = await write({ path: join(dir, 'f'), content: 'y' }, token);
    expect(await envelope(w)).toMatchObject({ field: `svc:files:rw:user:${dir}/f` });
    expect(readFileSync(join(dir, 'f'), 'utf8')).toBe('x');
  });

  it('without svc:act the route itself refuses', async () => {
    const dir = freshDir();
    const { token } = await t.appToken(['svc:llm', `svc:files:rw:user:${dir}`]);
    const res = await list({ path: dir }, token);
    expect(res.status).toBe(403);
    expect(await envelope(res)).toMatchObject({ code: 'scope_missing', field: 'svc:act' });
  });

  it('a read scope reads and lists under its directory, never writes, never reads outside', async () => {
    const dir = freshDir();
    const outside = freshDir();
    mkdirSync(join(dir, 'deep'));
    writeFileSync(join(dir, 'deep', 'f'), 'inside');
    writeFileSync(join(outside, 'f'), 'outside');
    const { token } = await t.appToken(['svc:llm', 'svc:act', `svc:files:read:user:${dir}`]);

    const read = await peek({ path: join(dir, 'deep', 'f') }, token);
    expect(read.status).toBe(200);
    expect(((await read.json()) as Slice).content).toBe('inside');
    expect((await list({ path: dir }, token)).status).toBe(200);

    const w = await write({ path: join(dir, 'deep', 'f'), content: 'changed' }, token);
    expect(w.status).toBe(403);
    expect(await envelope(w)).toMatchObject({
      code: 'scope_missing',
      field: `svc:files:rw:user:${dir}/deep/f`,
    });
    expect(readFileSync(join(dir, 'deep', 'f'), 'utf8')).toBe('inside');
    expect(temps(join(dir, 'deep'))).toEqual([]);

    for (const res of [
      await peek({ path: join(outside, 'f') }, token),
      await list({ path: outside }, token),
      // A sibling whose name starts like the directory is not under it.
      await peek({ path: `${dir}x/f` }, token),
      // Missing and outside: refused, not reported missing.
      await peek({ path: join(outside, 'missing') }, token),
    ]) {
      expect(res.status).toBe(403);
      expect((await envelope(res)).code).toBe('scope_missing');
    }
    // `..` written into the path resolves outside: refused too.
    const dotted = await peek({ path: `${dir}/../${outside.split('/').pop()}/f` }, token);
    expect(dotted.status).toBe(403);
  });

  it('an rw scope writes and reads under its directory, and makes parents there', async () => {
    const dir = freshDir();
    const { token } = await t.appToken(['svc:llm', 'svc:act', `svc:files:rw:user:${dir}`]);
    const path = join(dir, 'new/dir/file.txt');
    const w = await write({ path, content: 'made', create_parents: true }, token);
    expect(w.status).toBe(200);
    const read = await peek({ path }, token);
    expect(((await read.json()) as Slice).content).toBe('made');
    expect((await peek({ path: join(dir, 'missing') }, token)).status).toBe(404);
  });

  it('a symbolic link inside the directory that leads outside is refused, not followed', async () => {
    const dir = freshDir();
    const outside = freshDir();
    writeFileSync(join(outside, 'secret'), 'outside');
    symlinkSync(join(outside, 'secret'), join(dir, 'to-file'));
    symlinkSync(outside, join(dir, 'to-dir'));
    symlinkSync(t.home, join(dir, 'to-home'));
    // dangling: what they point at does not exist, outside
    symlinkSync(join(outside, 'nothing'), join(dir, 'to-nothing'));
    symlinkSync(join(outside, 'no-dir'), join(dir, 'to-no-dir'));
    const { token } = await t.appToken(['svc:llm', 'svc:act', `svc:files:rw:user:${dir}`]);

    for (const res of [
      await peek({ path: join(dir, 'to-file') }, token),
      await peek({ path: join(dir, 'to-dir', 'secret') }, token),
      await list({ path: join(dir, 'to-dir') }, token),
      await write({ path: join(dir, 'to-dir', 'secret'), content: 'x' }, token),
      await write({ path: join(dir, 'to-dir', 'new'), content: 'x' }, token),
      await peek({ path: join(dir, 'to-home', 'owner.token') }, token),
      // a 404 here would tell whether the path outside exists
      await peek({ path: join(dir, 'to-nothing') }, token),
      await list({ path: join(dir, 'to-no-dir', 'x') }, token),
    ]) {
      expect(res.status).toBe(403);
      const error = await envelope(res);
      expect(error.code).toBe('scope_missing');
      // Where the link points is never told.
      expect(JSON.stringify(error)).not.toContain(outside);
      expect(JSON.stringify(error)).not.toContain(t.home);
    }
    expect(readFileSync(join(outside, 'secret'), 'utf8')).toBe('outside');
    expect(readdirSync(outside)).toEqual(['secret']);

    // A dangling link that stays inside is missing, as its target is.
    symlinkSync(join(dir, 'not-yet'), join(dir, 'to-not-yet'));
    expect((await peek({ path: join(dir, 'to-not-yet') }, token)).status).toBe(404);

    // A link that stays inside is followed.
    writeFileSync(join(dir, 'real'), 'in');
    symlinkSync(join(dir, 'real'), join(dir, 'to-real'));
    const inside = await peek({ path: join(dir, 'to-real') }, token);
    expect(((await inside.json()) as Slice).content).toBe('in');
  });

  it("an app's own files scope (svc:files:*:app:…) grants no host path here", async () => {
    const dir = freshDir();
    writeFileSync(join(dir, 'f'), 'x');
    const { token } = await t.appToken(['svc:llm', 'svc:act', `svc:files:rw:app:test-app:${dir}`]);
    const res = await peek({ path: join(dir, 'f') }, token);
    expect(res.status).toBe(403);
    expect((await envelope(res)).code).toBe('scope_missing');
  });
});

describe('the OpenAPI document', () => {
  it('lists the three files routes with their operation ids', async () => {
    const doc = (await (await t.call('/v1/openapi.json', { token: null })).json()) as {
      paths: Record<string, Record<string, { operationId: string; 'x-svc-scope'?: string }>>;
    };
    expect(doc.paths['/v1/files/peek']?.get?.operationId).toBe('files.read');
    expect(doc.paths['/v1/files/write']?.post?.operationId).toBe('files.write');
    expect(doc.paths['/v1/files/list']?.get?.operationId).toBe('files.list');
    expect(doc.paths['/v1/files/write']?.post?.['x-svc-scope']).toBe('svc:act');
  });
});
