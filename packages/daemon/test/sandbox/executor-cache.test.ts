/**
 * The C executor's per-user cache (sandbox/executor-cache.ts, executor-build.ts), with real
 * bubblewrap, a real compiler and real files: daemons of one user on different homes share one
 * binary in `${XDG_CACHE_HOME:-~/.cache}/svc` (0700), the daemon home's cache serving where that
 * cannot be made; a node with read-write on a directory holding that cache neither sees nor
 * changes it; and a binary there is run only while it is a regular file of this user's that no
 * one else may write: else it is built again over it (why logged), or, where it cannot be, the
 * Node executor runs.
 */
import { spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  nativeExecutor,
  nativeExecutorIn,
  nativeLauncherOf,
} from '../../src/sandbox/executor-build.ts';
import { executorCacheDir, userExecutorCache } from '../../src/sandbox/executor-cache.ts';
import { makePlan } from '../../src/sandbox/plan.ts';
import { probeSandbox } from '../../src/sandbox/probe.ts';
import { openSession, type SandboxSession } from '../../src/sandbox/session.ts';
import { loadSandboxSettings } from '../../src/sandbox/settings.ts';

const scratch = mkdtempSync(join(tmpdir(), 'svc-exec-cache-'));
const savedXdg = process.env.XDG_CACHE_HOME;
const open: SandboxSession[] = [];
let dirs = 0;
/** A fresh directory in the scratch one. */
const fresh = (name: string) => {
  const dir = join(scratch, `${name}-${++dirs}`);
  mkdirSync(dir, { recursive: true });
  return dir;
};

afterEach(() => {
  if (savedXdg === undefined) delete process.env.XDG_CACHE_HOME;
  else process.env.XDG_CACHE_HOME = savedXdg;
});

afterAll(() => {
  for (const s of open) s.close();
  rmSync(scratch, { recursive: true, force: true });
});

/** Runs `binary` outside any sandbox with its stdin closed: a real executor says it is ready. */
function readyFrom(binary: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, [], { stdio: ['pipe', 'pipe', 'ignore'], env: {} });
    const out: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.once('error', reject);
    child.once('close', () => resolve(Buffer.concat(out).subarray(0, 1).toString()));
    child.stdin.end();
  });
}

describe('where the executor is built', () => {
  it('in $XDG_CACHE_HOME/svc, made 0700, one binary for every daemon home of the user', async () => {
    const xdg = fresh('xdg');
    process.env.XDG_CACHE_HOME = xdg;
    const [a, b] = [fresh('home-a'), fresh('home-b')];
    expect(executorCacheDir(a)).toBe(join(xdg, 'svc'));
    expect(statSync(join(xdg, 'svc')).mode & 0o777).toBe(0o700);
    const specA = probeSandbox(a).executor!;
    const specB = probeSandbox(b).executor!;
    expect(specA.binary.startsWith(join(xdg, 'svc', 'sandbox-executor-'))).toBe(true);
    expect(specB.binary).toBe(specA.binary);
    expect(await nativeExecutor(specA)).toBe(specA.binary);
    expect(await nativeExecutor(specB)).toBe(specA.binary);
    expect(readdirSync(join(xdg, 'svc'))).toEqual([specA.binary.slice(xdg.length + 5)]);
    // Neither home holds a cache of its own.
    expect(existsSync(join(a, 'cache'))).toBe(false);
    expect(existsSync(join(b, 'cache'))).toBe(false);
  });

  it('without XDG_CACHE_HOME (or with a relative one), in ~/.cache/svc', () => {
    delete process.env.XDG_CACHE_HOME;
    expect(userExecutorCache()).toBe(join(homedir(), '.cache', 'svc'));
    process.env.XDG_CACHE_HOME = 'relative/cache';
    expect(userExecutorCache()).toBe(join(homedir(), '.cache', 'svc'));
  });

  it('closes an existing cache directory others could read to 0700', () => {
    const xdg = fresh('xdg');
    mkdirSync(join(xdg, 'svc'), { mode: 0o755 });
    chmodSync(join(xdg, 'svc'), 0o755);
    process.env.XDG_CACHE_HOME = xdg;
    expect(executorCacheDir(fresh('home'))).toBe(join(xdg, 'svc'));
    expect(statSync(join(xdg, 'svc')).mode & 0o777).toBe(0o700);
  });

  it('in the daemon home’s cache where the user’s cannot be made, or is a link', () => {
    const home = fresh('home');
    // A regular file where a directory must be: nothing can be made below it.
    const file = join(fresh('ro'), 'not-a-dir');
    writeFileSync(file, '');
    process.env.XDG_CACHE_HOME = file;
    expect(executorCacheDir(home)).toBe(join(home, 'cache'));
    expect(probeSandbox(home).executor!.binary.startsWith(join(home, 'cache', ''))).toBe(true);
    const linked = fresh('xdg');
    symlinkSync(fresh('elsewhere'), join(linked, 'svc'));
    process.env.XDG_CACHE_HOME = linked;
    expect(executorCacheDir(home)).toBe(join(home, 'cache'));
  });
});

describe('a node with read-write over the directory holding the cache', () => {
  it('neither sees nor changes it, nor moves it aside; the rest it writes', async () => {
    const outer = fresh('outer');
    const xdg = join(outer, 'xdg');
    process.env.XDG_CACHE_HOME = xdg;
    const home = fresh('home');
    const worktree = join(home, 'worktrees', 'nd_cache');
    mkdirSync(worktree, { recursive: true });
    const host = probeSandbox(home);
    const cache = join(xdg, 'svc');
    expect(host.executor!.binary.startsWith(cache)).toBe(true);
    const plan = makePlan({
      settings: loadSandboxSettings(home),
      host,
      svcHome: home,
      scopes: ['svc:llm', 'svc:act', `svc:files:rw:user:${outer}`],
      worktree,
    });
    expect(plan.layers).toContainEqual({ path: cache, kind: 'hide' });
    const s = await openSession(plan);
    open.push(s);
    // The sandbox runs the binary built in that cache.
    expect(s.executor).toBe('native');
    const binary = host.executor!.binary;
    const before = statSync(binary);
    const r = await s.run(
      {
        command: [
          `ls -A ${cache} | wc -l`,
          `(echo x > ${cache}/planted) 2>/dev/null || echo refused`,
          `(cp /bin/true ${binary}) 2>/dev/null || echo refused`,
          `(mv ${xdg} ${outer}/moved) 2>/dev/null || echo pinned`,
          `echo ok > ${outer}/written && echo wrote`,
        ].join('; '),
        cwd: worktree,
        env: { PATH: '/usr/bin:/bin' },
      },
      new AbortController().signal,
    );
    expect(r.stdout.toString().replace(/ /g, '')).toBe('0\nrefused\nrefused\npinned\nwrote\n');
    // The executor, and the launcher that started the sandbox: nothing the command made.
    expect(readdirSync(cache).sort()).toEqual(
      [binary, nativeLauncherOf(host.executor!)!.binary]
        .map((b) => b.slice(cache.length + 1))
        .sort(),
    );
    expect(statSync(binary).ino).toBe(before.ino);
    expect(statSync(binary).mtimeMs).toBe(before.mtimeMs);
    expect(existsSync(join(outer, 'written'))).toBe(true);
  });
});

describe('a binary in the cache is run only while no one else can change it', () => {
  const spec = () => nativeExecutorIn(fresh('cache'))!;

  it('one its group may write is built again over it, why logged; so is one changed since', async () => {
    const { binary, source } = spec();
    writeFileSync(binary, '#!/bin/sh\nexit 1\n');
    chmodSync(binary, 0o775);
    const logged: string[] = [];
    expect(await nativeExecutor({ binary, source }, (why) => logged.push(why))).toBe(binary);
    expect(logged).toEqual([
      expect.stringMatching(/writable by its group or others \(mode 775\), so it is built again$/),
    ]);
    expect(statSync(binary).mode & 0o777).toBe(0o755);
    expect(await readyFrom(binary)).toBe('Y');
    // Made so after this process built it: checked at each use, built again.
    chmodSync(binary, 0o757);
    expect(await nativeExecutor({ binary, source }, (why) => logged.push(why))).toBe(binary);
    expect(logged).toHaveLength(2);
    expect(logged[1]).toMatch(/mode 757/);
    expect(statSync(binary).mode & 0o777).toBe(0o755);
  });

  it('a link in its place is built again as a file', async () => {
    const { binary, source } = spec();
    const elsewhere = join(fresh('elsewhere'), 'executor');
    writeFileSync(elsewhere, '#!/bin/sh\nexit 1\n', { mode: 0o755 });
    symlinkSync(elsewhere, binary);
    const logged: string[] = [];
    expect(await nativeExecutor({ binary, source }, (why) => logged.push(why))).toBe(binary);
    expect(logged).toEqual([expect.stringMatching(/is not a regular file, so it is built again$/)]);
    expect(statSync(binary).isFile()).toBe(true);
    expect(await readyFrom(binary)).toBe('Y');
  });

  it.skipIf(process.getuid?.() !== 0)('another user’s is built again as this one’s', async () => {
    const { binary, source } = spec();
    writeFileSync(binary, '#!/bin/sh\nexit 1\n', { mode: 0o755 });
    chownSync(binary, 65534, 65534);
    const logged: string[] = [];
    expect(await nativeExecutor({ binary, source }, (why) => logged.push(why))).toBe(binary);
    expect(logged[0]).toMatch(/is owned by uid 65534, not 0, so it is built again$/);
    expect(statSync(binary).uid).toBe(0);
  });

  it('where none can be put in its place, the Node executor runs, why logged once', async () => {
    const { binary, source } = spec();
    mkdirSync(join(binary, 'occupied'), { recursive: true });
    const logged: string[] = [];
    expect(await nativeExecutor({ binary, source }, (why) => logged.push(why))).toBeNull();
    expect(logged).toHaveLength(2);
    expect(logged[0]).toMatch(/is not a regular file, so it is built again$/);
    expect(logged[1]).toMatch(/could not be put in place.*run the Node executor/);
    // Once per process: not tried again.
    expect(await nativeExecutor({ binary, source }, (why) => logged.push(why))).toBeNull();
    expect(logged).toHaveLength(2);
    const home = fresh('home');
    const s = await openSession(
      makePlan({
        settings: loadSandboxSettings(home),
        host: { ...probeSandbox(home), executor: { binary, source } },
        svcHome: home,
        scopes: ['svc:llm', 'svc:act'],
      }),
    );
    open.push(s);
    expect(s.executor).toBe('node');
    const r = await s.run(
      { command: 'echo fell back', cwd: '/tmp', env: { PATH: '/usr/bin:/bin' } },
      new AbortController().signal,
    );
    expect(r.stdout.toString()).toBe('fell back\n');
  });
});
