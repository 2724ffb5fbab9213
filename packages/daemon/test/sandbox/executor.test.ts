/**
 * A node's sandbox and its executor (sandbox/session.ts), with real bubblewrap and real
 * processes: the C executor (executor.c) and the Node fall-back pass the same cases. Each
 * command gets exactly its env and cwd; its output is cut after 1 MiB + 1 byte; what it leaves in
 * its group dies with its shell, what it moved to a session of its own lives until the sandbox
 * ends; a kill ends a fork bomb; 127.0.0.1:3128 carries a request to the node's proxy. And the
 * build: where no compiler is on PATH, a session runs the Node executor.
 */
import { execFile, spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { nativeExecutor, nativeExecutorIn } from '../../src/sandbox/executor-build.ts';
import { commandFrame, HEADER } from '../../src/sandbox/executor-wire.ts';
import { makePlan, type SandboxPlan } from '../../src/sandbox/plan.ts';
import { probeSandbox } from '../../src/sandbox/probe.ts';
import { openSession, type SandboxSession } from '../../src/sandbox/session.ts';
import { loadSandboxSettings } from '../../src/sandbox/settings.ts';
import { escaped, processesWith } from '../processes.ts';

const home = mkdtempSync(join(tmpdir(), 'svc-exec-'));
const worktree = join(home, 'worktrees', 'nd_exec');
mkdirSync(worktree, { recursive: true });
const host = probeSandbox(home);
const settings = loadSandboxSettings(home);
const ENV = { PATH: '/usr/bin:/bin', HOME: worktree, ONLY: 'this one' };

function planWith(executor: 'native' | 'node', network?: SandboxPlan['network']): SandboxPlan {
  const plan = makePlan({
    settings,
    host: executor === 'node' ? { ...host, executor: null } : host,
    svcHome: home,
    scopes: ['svc:llm', 'svc:act'],
    worktree,
    network,
  });
  return plan;
}

const open: SandboxSession[] = [];
async function session(executor: 'native' | 'node', network?: SandboxPlan['network']) {
  const made = await openSession(planWith(executor, network));
  open.push(made);
  expect(made.executor).toBe(executor);
  return made;
}
const never = new AbortController().signal;
const run = (s: SandboxSession, command: string, stop = never, cwd = worktree) =>
  s.run({ command, cwd, env: ENV }, stop);

/** Resolves once `check` holds, trying at most `tries` times a few ms apart. */
async function until(check: () => boolean, tries = 500): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('never came true');
}

afterAll(() => {
  for (const s of open) s.close();
  rmSync(home, { recursive: true, force: true });
});

describe.each(['native', 'node'] as const)('the %s executor', (executor) => {
  it('runs a command with exactly its env and cwd, and returns its code and streams', async () => {
    const s = await session(executor);
    const r = await run(s, 'pwd; env | sort; echo oops >&2; exit 3');
    expect(r.code).toBe(3);
    expect(r.signal).toBeNull();
    const lines = r.stdout.toString().trim().split('\n');
    expect(lines[0]).toBe(worktree);
    // `sh` adds PWD and its own few; nothing of the executor's or the host's.
    expect(lines.filter((l) => !/^(PWD|SHLVL|_|OLDPWD)=/.test(l)).slice(1)).toEqual([
      `HOME=${worktree}`,
      'ONLY=this one',
      'PATH=/usr/bin:/bin',
    ]);
    expect(r.stderr.toString()).toBe('oops\n');
    const tmp = await run(s, 'pwd', never, '/tmp');
    expect(tmp.stdout.toString()).toBe('/tmp\n');
  });

  it('runs commands side by side, each its own output', async () => {
    const s = await session(executor);
    const results = await Promise.all(
      [1, 2, 3, 4].map((n) => run(s, `i=0; while [ $i -lt 200 ]; do echo ${n}; i=$((i+1)); done`)),
    );
    results.forEach((r, i) => {
      expect(r.stdout.toString()).toBe(`${i + 1}\n`.repeat(200));
    });
  });

  it('cuts each stream after 1 MiB and 1 byte', async () => {
    const s = await session(executor);
    const r = await run(
      s,
      'head -c 3000000 /dev/zero; head -c 1500000 /dev/zero >&2; echo done >&2',
    );
    expect(r.code).toBe(0);
    expect(r.stdout.length).toBe(1024 * 1024 + 1);
    expect(r.stderr.length).toBe(1024 * 1024 + 1);
  });

  it('says a command that cannot start could not (a cwd that is not there)', async () => {
    const s = await session(executor);
    await expect(run(s, 'true', never, join(worktree, 'missing'))).rejects.toThrow(
      /could not start.*ENOENT/,
    );
    // And the session goes on.
    expect((await run(s, 'echo on')).stdout.toString()).toBe('on\n');
  });

  it('kills what a command left in its group when its shell exits; a setsid process lives until the sandbox ends', async () => {
    const s = await session(executor);
    const mark = `${3100 + Math.floor(Math.random() * 800)}.${executor.length}`;
    const r = await run(
      s,
      // One left in the group (holding the pipes), one moved to a session of its own.
      `sleep 4${mark} & ${escaped(`5${mark}`)}`,
    );
    expect(r.code).toBe(0);
    await until(() => processesWith(`4${mark}`).length === 0);
    expect(processesWith(`5${mark}`).length).toBe(1);
    // The next command still sees it.
    const seen = await run(s, `kill -0 ${r.stdout.toString().trim()} && echo alive`);
    expect(seen.stdout.toString()).toBe('alive\n');
    s.close();
    await until(() => processesWith(`5${mark}`).length === 0);
  });

  it('answers 250 ms after its shell exits though a setsid process holds its pipes', async () => {
    const s = await session(executor);
    const t0 = performance.now();
    const r = await run(s, 'setsid sleep 30 & echo started');
    expect(r.stdout.toString()).toBe('started\n');
    expect(performance.now() - t0).toBeLessThan(10_000);
  });

  it('ends a fork bomb at a kill, and nothing of it is left', async () => {
    const s = await session(executor);
    const stop = new AbortController();
    const started = join(worktree, `bomb-${executor}`);
    const done = run(s, `touch ${started}; b() { b & b & wait; }; b`, stop.signal);
    await until(() => existsSync(started));
    stop.abort();
    const r = await done;
    expect(r.signal).toBe('SIGKILL');
    // In the sandbox's PID namespace: its init, the executor, and this command's shell, ls and grep.
    const left = await run(s, 'ls /proc | grep -c "^[0-9]"');
    expect(Number(left.stdout.toString().trim())).toBeLessThanOrEqual(5);
  });

  it('relays 127.0.0.1:3128 to the node proxy, which answers', async () => {
    const s = await session(executor, { allow: ['example.test'] });
    // Any HTTP client will do: the proxy, outside, refuses a host off its list with 403.
    const request =
      'GET http://other.test/ HTTP/1.1\\r\\nHost: other.test\\r\\nConnection: close\\r\\n\\r\\n';
    const r = await run(
      s,
      `bash -c 'exec 3<>/dev/tcp/127.0.0.1/3128 || exit 9; printf "${request}" >&3; head -1 <&3'`,
    );
    expect(r.stdout.toString()).toMatch(/^HTTP\/1\.1 403/);
  });

  it('keeps its descriptors from its commands (they cannot write into its channel)', async () => {
    const s = await session(executor);
    // In the sandbox's PID namespace: 1 is bubblewrap's init, 2 the executor. Opening its
    // stdin writes nothing, but would give a command a way to send it frames; the sandbox
    // (its capabilities dropped, its seccomp filter) refuses it.
    const r = await run(s, 'cat /proc/2/comm; (: > /proc/2/fd/0) 2>/dev/null || echo closed');
    expect(r.stdout.toString()).toMatch(/closed\n$/);
  });

  it('relays a large request and a larger answer whole, both ways', async () => {
    // A host server the proxy may reach (127.0.0.1 listed): it counts what it is sent and
    // answers 2 MB.
    const server = createServer((req, res) => {
      let got = 0;
      req.on('data', (c: Buffer) => {
        got += c.length;
      });
      req.on('end', () => {
        res.writeHead(200, { 'x-got': String(got) });
        res.end(Buffer.alloc(2_000_000, 'a'));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const s = await session(executor, { allow: ['127.0.0.1'] });
      const r = await run(
        s,
        `head -c 1500000 /dev/zero > /tmp/up; curl -s --noproxy '' -x http://127.0.0.1:3128 -D /tmp/h --data-binary @/tmp/up http://127.0.0.1:${port}/ | wc -c; grep -i x-got /tmp/h`,
      );
      expect(r.stdout.toString().replace(/\r/g, '')).toBe('2000000\nx-got: 1500000\n');
    } finally {
      server.close();
    }
  });

  it('bounds each command by RLIMIT_NPROC where no group bounds processes', async () => {
    // The C executor sets the bound itself, so a `prlimit` that is not there is never run.
    const plan = makePlan({
      settings,
      host: {
        ...host,
        ...(executor === 'node' && { executor: null }),
        cgroup: null,
        prlimit: executor === 'native' ? '/nonexistent/prlimit' : '/usr/bin/prlimit',
      },
      svcHome: home,
      scopes: ['svc:llm', 'svc:act'],
      worktree,
    });
    const s = await openSession(plan);
    open.push(s);
    expect(s.executor).toBe(executor);
    const r = await run(s, 'grep "^Max processes" /proc/self/limits');
    expect(r.code).toBe(0);
    expect(r.stdout.toString()).toMatch(
      new RegExp(`^Max processes +${plan.pids} +${plan.pids} +processes`),
    );
  });

  it('ends with stdin: a closed session ends its sandbox', async () => {
    const s = await session(executor);
    const mark = `6${Math.floor(Math.random() * 100000)}`;
    const r = await run(s, escaped(mark));
    expect(r.code).toBe(0);
    expect(processesWith(mark).length).toBe(1);
    s.close();
    await until(() => processesWith(mark).length === 0);
    await expect(run(s, 'true')).rejects.toThrow(/sandbox/);
  });
});

describe('the C executor alone (outside a sandbox)', () => {
  /** Starts it; resolves with its exit code once it ends, and what it wrote. */
  async function start(input: Buffer | null, env: Record<string, string> = {}) {
    const binary = await nativeExecutor(host.executor!);
    const child = spawn(binary!, [], { stdio: ['pipe', 'pipe', 'ignore'], env });
    const out: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    const code = new Promise<number | null>((resolve) => child.once('close', resolve));
    if (input !== null) child.stdin.write(input);
    child.stdin.end();
    return { code: await code, out: Buffer.concat(out) };
  }

  it('says it is ready, and ends with its stdin', async () => {
    const { code, out } = await start(null);
    expect(code).toBe(0);
    expect(out.subarray(0, 1).toString()).toBe('Y');
    expect(out.length).toBe(HEADER);
  });

  it('does not start under a process bound it cannot read', async () => {
    for (const bad of ['', '0', 'many', '12x', '-5', '99999999999']) {
      const { code, out } = await start(null, { SVC_NPROC: bad });
      expect(code).toBe(1);
      expect(out.length).toBe(0);
    }
    expect((await start(null, { SVC_NPROC: '64' })).code).toBe(0);
  });

  it('ends at once at anything that is no frame of the wire, running nothing', async () => {
    const marker = join(home, 'ran');
    const command = commandFrame(1, {
      argv: ['/bin/sh', '-c', `touch ${marker}`],
      cwd: '/',
      env: {},
    }) as Buffer;
    /** A command frame of `strings` under counts that say otherwise. */
    const miscounted = (argc: number, envc: number, strings: string[]) => {
      const body = Buffer.concat([Buffer.alloc(8), Buffer.from(`${strings.join('\0')}\0`)]);
      body.writeUInt32LE(argc, 0);
      body.writeUInt32LE(envc, 4);
      const header = Buffer.from(command.subarray(0, HEADER));
      header.writeUInt32LE(body.length, 5);
      return Buffer.concat([header, body]);
    };
    for (const bad of [
      Buffer.from('{"id":1,"argv":["/bin/true"]}\n'), // a line of some other wire
      miscounted(3, 0, ['/', '/bin/true']), // fewer strings than its counts
      miscounted(1, 0, ['/', '/bin/true', 'A=b']), // more
      miscounted(1_000_000, 0, ['/', '/bin/true']), // counts no body of its size holds
    ]) {
      const { code } = await start(Buffer.concat([bad, command]));
      expect(code).toBe(2);
    }
    expect(existsSync(marker)).toBe(false);
  });
});

describe('building the C executor', () => {
  it('with no compiler on PATH, a session runs the Node executor', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'svc-exec-cache-'));
    const spec = nativeExecutorIn(cache)!;
    const saved = process.env.PATH;
    const logged: string[] = [];
    process.env.PATH = join(cache, 'empty');
    try {
      expect(await nativeExecutor(spec, (why) => logged.push(why))).toBeNull();
    } finally {
      process.env.PATH = saved;
    }
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatch(/could not be built.*cc -static: not found on PATH/);
    // Once per process: the same binary is not tried again.
    expect(await nativeExecutor(spec, (why) => logged.push(why))).toBeNull();
    expect(logged).toHaveLength(1);
    const s = await openSession({ ...planWith('native'), host: { ...host, executor: spec } });
    open.push(s);
    expect(s.executor).toBe('node');
    expect((await run(s, 'echo fell back')).stdout.toString()).toBe('fell back\n');
    rmSync(cache, { recursive: true, force: true });
  });

  it('a C executor that does not start in the sandbox gives way to the Node one', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'svc-exec-cache-'));
    const spec = nativeExecutorIn(cache)!;
    // There, built as far as the cache can tell; in the sandbox, it ends at once.
    writeFileSync(spec.binary, '#!/bin/sh\nexit 1\n', { mode: 0o755 });
    const plan = { ...planWith('native'), host: { ...host, executor: spec } };
    const s = await openSession(plan);
    open.push(s);
    expect(s.executor).toBe('node');
    expect((await run(s, 'echo gave way')).stdout.toString()).toBe('gave way\n');
    rmSync(cache, { recursive: true, force: true });
  });

  it('two processes building at once both get a whole binary', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'svc-exec-cache-'));
    const module = JSON.stringify(
      new URL('../../src/sandbox/executor-build.ts', import.meta.url).href,
    );
    const code = `const { nativeExecutor, nativeExecutorIn } = await import(${module});
      console.log(await nativeExecutor(nativeExecutorIn(${JSON.stringify(cache)})));`;
    const build = () =>
      new Promise<string>((resolve, reject) => {
        execFile(process.execPath, ['--input-type=module', '-e', code], (error, stdout) =>
          error === null ? resolve(stdout.trim()) : reject(error),
        );
      });
    const [a, b] = await Promise.all([build(), build()]);
    const spec = nativeExecutorIn(cache)!;
    expect([a, b]).toEqual([spec.binary, spec.binary]);
    expect(readdirSync(cache)).toEqual([spec.binary.slice(cache.length + 1)]);
    const s = await openSession({ ...planWith('native'), host: { ...host, executor: spec } });
    open.push(s);
    expect(s.executor).toBe('native');
    expect((await run(s, 'echo built')).stdout.toString()).toBe('built\n');
    rmSync(cache, { recursive: true, force: true });
  });

  it('builds once into the cache, atomically, and reuses what is there', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'svc-exec-cache-'));
    const spec = nativeExecutorIn(cache)!;
    expect(spec.binary.startsWith(join(cache, 'sandbox-executor-'))).toBe(true);
    expect(await nativeExecutor(spec)).toBe(spec.binary);
    // No temporary file left; only the binary.
    expect(readdirSync(cache)).toEqual([spec.binary.slice(cache.length + 1)]);
    rmSync(cache, { recursive: true, force: true });
  });
});
