/**
 * A pid read a while ago may name another process by now: pids wrap (at 32,768 here, within
 * minutes of this suite), and a process below such a pid may share the daemon's own group. The
 * daemon never signals its own process or group, a host's kill after its exit signals nothing,
 * and a start takes for a previous daemon's host only a process of its own home. Real
 * processes; the kill of a reaped host is watched through `process.kill`.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { procStat } from '../src/lifecycle/proc-stat.ts';
import { PRIVATE_TMP_ENV } from '../src/sandbox/private-tmp.ts';
import { spawnHost } from '../src/supervisor/agent-host.ts';
import { descendants, type ProcessInfo, signalAll } from '../src/supervisor/process-tree.ts';
import { isOurHost } from '../src/supervisor/recover.ts';
import { isRunning } from './broker-fixtures.ts';

const dir = mkdtempSync(join(tmpdir(), 'svc-stale-pids-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const processTree = fileURLToPath(new URL('../src/supervisor/process-tree.ts', import.meta.url));
const procStatModule = fileURLToPath(new URL('../src/lifecycle/proc-stat.ts', import.meta.url));

describe('signalAll', () => {
  it("signals a listed process, never its caller's own process or group", async () => {
    // The caller runs in a group of its own (so a broken guard kills it, not this suite), with
    // two children in that group, as every child spawned without `detached` is; one is listed.
    const script = join(dir, 'caller.mjs');
    writeFileSync(
      script,
      `import { spawn } from 'node:child_process';
import { once } from 'node:events';
const { signalAll } = await import(${JSON.stringify(processTree)});
const { isAlive } = await import(${JSON.stringify(procStatModule)});
const sentinel = spawn('sleep', ['30'], { stdio: 'ignore' });
const listed = spawn('sleep', ['30'], { stdio: 'ignore' });
const gone = once(listed, 'exit');
signalAll([
  { pid: listed.pid, ppid: process.pid, pgid: process.pid },
  { pid: process.pid, ppid: 1, pgid: process.pid },
], 'SIGKILL');
const [, signal] = await gone;
const sentinelAlive = isAlive(sentinel.pid);
sentinel.kill('SIGKILL');
console.log(JSON.stringify({ signal, sentinelAlive }));
`,
    );
    const caller = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', script], {
      detached: true,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    caller.stdout.setEncoding('utf8').on('data', (text: string) => {
      out += text;
    });
    const [code, signal] = (await once(caller, 'exit')) as [number | null, string | null];
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(JSON.parse(out)).toEqual({ signal: 'SIGKILL', sentinelAlive: true });
  });
});

describe('signalAll, a group', () => {
  it('is signalled only when a listed process leads it', async () => {
    // A group of someone else's: its leader is not listed, one of its members is.
    const leader = spawn('sh', ['-c', 'sleep 30 & sleep 30 & wait'], {
      detached: true,
      stdio: 'ignore',
    });
    try {
      let members: ProcessInfo[] = [];
      await vi.waitFor(() => {
        members = descendants(leader.pid!);
        expect(members).toHaveLength(2);
      });
      const [listed, other] = members as [ProcessInfo, ProcessInfo];
      expect(listed.pgid).toBe(leader.pid);
      signalAll([listed], 'SIGKILL');
      await vi.waitFor(() =>
        expect(descendants(leader.pid!).map((p) => p.pid)).toEqual([other.pid]),
      );
      expect(isRunning(leader.pid!)).toBe(true);
      // Listed with its leader, the whole group goes.
      const exited = once(leader, 'exit');
      signalAll([{ pid: leader.pid!, ppid: process.pid, pgid: leader.pid! }, other], 'SIGKILL');
      await exited;
      await vi.waitFor(() => expect(isRunning(other.pid)).toBe(false));
    } finally {
      try {
        process.kill(-leader.pid!, 'SIGKILL');
      } catch {
        // Gone.
      }
    }
  });
});

/** An agent host whose entry is `source`. */
function hostRunning(name: string, source: string) {
  const entry = join(dir, name);
  writeFileSync(entry, `${source}\n`);
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
  return spawnHost({
    entry,
    cwd: dir,
    env,
    logDir: dir,
    marginMs: 1_000,
    capacity: 1,
    tmpRoot: dir,
  });
}

describe('signalAll, a group whose leader is gone', () => {
  it('is signalled whole: what a command left in it after its shell exited', async () => {
    const shell = spawn('sh', ['-c', 'sleep 30 & sleep 30 & echo $!'], {
      detached: true,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const group = shell.pid!;
    let out = '';
    shell.stdout.setEncoding('utf8').on('data', (text: string) => {
      out += text;
    });
    await once(shell, 'exit');
    const last = Number(out.trim());
    // The first `sleep` started just before the last one; both are in the shell's group.
    const left = readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .map(Number)
      .filter((pid) => isRunning(pid) && procStat(pid)?.pgid === group);
    try {
      expect(left).toContain(last);
      expect(left).toHaveLength(2);
      signalAll([{ pid: last, ppid: 1, pgid: group }], 'SIGKILL');
      await vi.waitFor(() => expect(left.filter(isRunning)).toEqual([]));
    } finally {
      try {
        process.kill(-group, 'SIGKILL');
      } catch {
        // Gone.
      }
    }
  });
});

describe("an agent host's kill", () => {
  it('signals nothing once its exit was reaped: its pid may be another process by then', async () => {
    const host = hostRunning('host-exits.mjs', 'process.exit(0);');
    await host.exited;
    const kill = vi.spyOn(process, 'kill');
    try {
      await host.kill();
      const signalled = kill.mock.calls.filter(([target]) => Math.abs(target) === host.pid);
      expect(signalled).toEqual([]);
    } finally {
      kill.mockRestore();
    }
  });

  it('kills a live host', async () => {
    const host = hostRunning('host-waits.mjs', 'setInterval(() => {}, 1000);');
    expect(await host.kill()).toEqual({ code: null, signal: 'SIGKILL' });
    // Gone, not a zombie left.
    expect(isRunning(host.pid)).toBe(false);
  });
});

describe("a previous daemon's host, at the next start", () => {
  /** A process that looks like a host of `home`: the entry in its command line, its private dir. */
  function hostLike(home: string) {
    const entry = join(dir, 'entry', 'host.ts');
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', entry], {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        [PRIVATE_TMP_ENV]: join(home, 'run', 'hosts', 'h-abc123'),
      },
      stdio: 'ignore',
    });
    return { child, entry };
  }

  it("is taken for this home's only with this home's private directory", async () => {
    const { child, entry } = hostLike(join(dir, 'home-b'));
    try {
      await once(child, 'spawn');
      const state = (home: string) => ({
        entry,
        cache: join(home, 'cache'),
        hostsTmp: join(home, 'run', 'hosts'),
      });
      // Another home's daemon runs the same entry: the pid is not ours to kill.
      expect(isOurHost(child.pid!, state(join(dir, 'home-a')))).toBe(false);
      expect(isOurHost(child.pid!, state(join(dir, 'home-b')))).toBe(true);
      // Nor is a process without the entry, whatever its environment.
      expect(isOurHost(child.pid!, { ...state(join(dir, 'home-b')), entry: '/nowhere.ts' })).toBe(
        false,
      );
    } finally {
      child.kill('SIGKILL');
    }
  });
});
