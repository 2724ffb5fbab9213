/**
 * The agent host's sandbox launcher (src/sandbox/launcher.ts, launcher.c), built with the real
 * compiler and run as a real process: what it starts talks to this process over the launcher's
 * socket as its stdin and stdout, inherits exactly the descriptors asked for, opened again as
 * asked (a bind's handle refused where its path is now a link), is joined to its control group
 * files before its exec (refused when one cannot be written), and dies on a kill; a connection
 * that does not say a start's token gets nothing; the launcher ends with the process that runs
 * it; and a node's sandbox, opened through a session, is the launcher's child, not this process's.
 */
import { spawn } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  nativeExecutor,
  nativeExecutorIn,
  nativeLauncherOf,
} from '../../src/sandbox/executor-build.ts';
import { executorCacheDir } from '../../src/sandbox/executor-cache.ts';
import { launcherAt } from '../../src/sandbox/launcher.ts';
import { makePlan } from '../../src/sandbox/plan.ts';
import { probeSandbox } from '../../src/sandbox/probe.ts';
import { openSession } from '../../src/sandbox/session.ts';
import { loadSandboxSettings } from '../../src/sandbox/settings.ts';

const scratch = mkdtempSync(join(tmpdir(), 'svc-launcher-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const spec = nativeLauncherOf(nativeExecutorIn(executorCacheDir(scratch))!)!;
const binary = await nativeExecutor(spec);
if (binary === null) throw new Error('no compiler here to build the launcher');
const launcher = launcherAt(binary);

/** Everything `socket` says until it ends. */
function readAll(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    socket.on('data', (data: Buffer) => {
      text += data.toString('utf8');
    });
    socket.once('close', () => resolve(text));
    socket.resume();
  });
}

const sh = (script: string) => ['/bin/sh', '-c', script];

function cmdlineOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}

/** Parent pid and name of every process, from /proc. */
function processes(): Map<number, { ppid: number; name: string }> {
  const all = new Map<number, { ppid: number; name: string }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      all.set(Number(entry), {
        name: stat.slice(stat.indexOf('(') + 1, close),
        ppid: Number(stat.slice(close + 2).split(' ')[1]),
      });
    } catch {
      // Gone meanwhile.
    }
  }
  return all;
}

describe('the sandbox launcher', () => {
  it('starts what it is asked with the connection as stdin and stdout, and the descriptors asked for', async () => {
    const file = join(scratch, 'passed.txt');
    writeFileSync(file, 'through fd 3\n');
    const started = launcher.start({
      argv: sh('read line; echo "got $line"; cat <&3; ls /proc/self/fd | wc -l'),
      env: { PATH: '/usr/bin:/bin' },
      opens: [{ mode: 'r', path: file }],
      joins: [],
    });
    const socket = await started.channel;
    const said = readAll(socket);
    socket.write('hello\n');
    // 0, 1, 2, 3, and the one `ls` reads /proc/self/fd through: nothing else of the launcher's.
    expect(await said).toBe('got hello\nthrough fd 3\n5\n');
  });

  it('refuses a start whose handle path is now a link, or whose group file cannot be written', async () => {
    const dir = join(scratch, 'real');
    mkdirSync(dir);
    const link = join(scratch, 'link');
    symlinkSync(dir, link);
    const viaLink = launcher.start({
      argv: sh('echo ran'),
      env: {},
      opens: [{ mode: 'p', path: link }],
      joins: [],
    });
    await expect(viaLink.channel).rejects.toThrow(/could not open .*link/);
    const noGroup = launcher.start({
      argv: sh('echo ran'),
      env: {},
      opens: [{ mode: 'p', path: dir }],
      joins: [join(scratch, 'no-such-group', 'tasks')],
    });
    await expect(noGroup.channel).rejects.toThrow(/could not join/);
  });

  it('writes 0 to each group file before the exec', async () => {
    const tasks = join(scratch, 'tasks');
    writeFileSync(tasks, '');
    const started = launcher.start({
      argv: sh('echo started'),
      env: {},
      opens: [],
      joins: [tasks],
    });
    const socket = await started.channel;
    expect(await readAll(socket)).toBe('started\n');
    expect(readFileSync(tasks, 'utf8')).toBe('0');
  });

  it('opens the channel of a command that ended before its connection was read', async () => {
    const pidFile = join(scratch, 'quick.pid');
    const started = launcher.start({
      argv: sh(`echo quick; echo $$ > ${pidFile}`),
      env: {},
      opens: [],
      joins: [],
    });
    // This loop held until the command has ended and the launcher reaped it (its `X` then sent):
    // the `X` and the queued connection are read in one turn of the loop, the `X` first.
    const pause = new Int32Array(new SharedArrayBuffer(4));
    const reaped = () => {
      try {
        const pid = readFileSync(pidFile, 'utf8').trim();
        return pid !== '' && !existsSync(`/proc/${pid}`);
      } catch {
        return false;
      }
    };
    for (let i = 0; i < 10_000 && !reaped(); i++) Atomics.wait(pause, 0, 0, 1);
    expect(reaped()).toBe(true);
    expect(await readAll(await started.channel)).toBe('quick\n');
  });

  it('kills what it started when asked', async () => {
    const started = launcher.start({ argv: sh('exec sleep 600'), env: {}, opens: [], joins: [] });
    const socket = await started.channel;
    const ended = readAll(socket);
    started.kill();
    expect(await ended).toBe('');
  });

  it('gives nothing to a connection that does not say a start’s token', async () => {
    // The launcher's socket, from its command line (the launcher is this process's child).
    const pid = [...processes()].find(
      ([, p]) => p.ppid === process.pid && p.name === 'sandbox-launche',
    )?.[0];
    const socketPath = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[1];
    expect(socketPath).toBeDefined();
    const stranger = connect(socketPath!);
    const closed = readAll(stranger);
    stranger.write('0'.repeat(32));
    expect(await closed).toBe('');
  });

  it('ends once it has had no sandbox for its idle time, and the next start makes another', async () => {
    const copy = join(scratch, 'launcher-copy');
    copyFileSync(binary, copy);
    chmodSync(copy, 0o755);
    const mine = () =>
      [...processes()]
        .filter(([pid, p]) => p.ppid === process.pid && cmdlineOf(pid).startsWith(copy))
        .map(([pid]) => pid);
    const exitListeners = process.listenerCount('exit');
    const short = launcherAt(copy, 20);
    expect(
      await readAll(
        await short.start({ argv: sh('echo one'), env: {}, opens: [], joins: [] }).channel,
      ),
    ).toBe('one\n');
    const first = mine();
    expect(first).toHaveLength(1);
    // Bounded, event by event: its exit follows its idle time.
    for (let i = 0; i < 500 && mine().length > 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(mine()).toEqual([]);
    // Its cleanup at this process's exit went with it: launchers that come and go add none.
    for (let i = 0; i < 500 && process.listenerCount('exit') > exitListeners; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(process.listenerCount('exit')).toBe(exitListeners);
    const again = launcherAt(copy, 20).start({
      argv: sh('echo two'),
      env: {},
      opens: [],
      joins: [],
    });
    expect(await readAll(await again.channel)).toBe('two\n');
  });

  it('ends with the process that runs it', async () => {
    const script = `
      const { launcherAt } = await import(${JSON.stringify(new URL('../../src/sandbox/launcher.ts', import.meta.url).href)});
      const started = launcherAt(${JSON.stringify(binary)}).start({ argv: ['/bin/sh', '-c', 'exec sleep 600'], env: {}, opens: [], joins: [] });
      await started.channel;
      console.log('up');
      setInterval(() => {}, 1000);`;
    const host = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise((resolve) => host.stdout.once('data', resolve));
    const launcherPid = [...processes()].find(
      ([, p]) => p.ppid === host.pid && p.name.startsWith('sandbox-launch'),
    )?.[0];
    expect(launcherPid).toBeDefined();
    // What it started: a bare `sleep` here, which outlives it (a sandbox's bubblewrap would die
    // with it, `--die-with-parent`), so the test ends it itself.
    const sleeper = [...processes()].find(([, p]) => p.ppid === launcherPid)?.[0];
    expect(sleeper).toBeDefined();
    const gone = new Promise((resolve) => host.once('exit', resolve));
    host.kill('SIGKILL');
    await gone;
    try {
      // PR_SET_PDEATHSIG: the kernel kills it as its parent dies; bounded, event by event.
      for (let i = 0; i < 500 && processes().has(launcherPid!); i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const left = processes().get(launcherPid!);
      expect(left === undefined || left.name !== 'sandbox-launche').toBe(true);
    } finally {
      // Only while it is still that sleep: its pid may be another process's by now.
      if (cmdlineOf(sleeper!).trim() === 'sleep 600') process.kill(sleeper!, 'SIGKILL');
    }
  });
});

describe("a node's sandbox", () => {
  it("is started by the launcher: the launcher's child, none of this process's", async () => {
    const home = join(scratch, 'home');
    const worktree = join(home, 'worktrees', 'nd_launch');
    mkdirSync(worktree, { recursive: true });
    const host = probeSandbox(home);
    const plan = makePlan({
      settings: loadSandboxSettings(home),
      host,
      svcHome: home,
      scopes: ['svc:llm', 'svc:act'],
      worktree,
    });
    const session = await openSession(plan);
    try {
      const r = await session.run(
        { command: 'echo inside', cwd: worktree, env: { PATH: '/usr/bin:/bin' } },
        new AbortController().signal,
      );
      expect(r.stdout.toString()).toBe('inside\n');
      const all = processes();
      const bwraps = [...all].filter(([, p]) => p.name === 'bwrap');
      expect(bwraps.some(([, p]) => all.get(p.ppid)?.name === 'sandbox-launche')).toBe(true);
      expect(bwraps.some(([, p]) => p.ppid === process.pid)).toBe(false);
    } finally {
      session.close();
    }
  });
});
