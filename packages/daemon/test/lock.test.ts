import { spawn } from 'node:child_process';
import { chmodSync, copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireLock, readLock, releaseLock } from '../src/lifecycle/lock.ts';
import { scratchDirs } from './helpers.ts';

const tempDir = scratchDirs('svc-lock-');

function state(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat[stat.lastIndexOf(')') + 2];
  } catch {
    return undefined;
  }
}

function exited(child: ReturnType<typeof spawn>): Promise<unknown> {
  return new Promise((resolve) => child.once('exit', resolve));
}

const linux = process.platform === 'linux';

describe.runIf(linux)('lock of a killed daemon', () => {
  it('a daemon killed but not yet reaped (a zombie) holds no lock', async () => {
    const home = tempDir();
    const child = spawn('sleep', ['30'], { stdio: 'ignore' });
    const gone = exited(child);
    const pid = child.pid!;
    writeFileSync(join(home, 'daemon.lock'), JSON.stringify({ pid, started_at: 'x' }));
    expect(readLock(home)?.pid).toBe(pid);

    // No await from the kill to the checks: Node reaps its children on the event loop, so until
    // this turn ends the killed child stays a zombie that kill(pid, 0) still finds.
    child.kill('SIGKILL');
    const deadline = Date.now() + 5_000;
    while (state(pid) !== 'Z' && Date.now() < deadline) {
      // The kernel marks the process a zombie within microseconds of the SIGKILL.
    }
    expect(state(pid)).toBe('Z');
    expect(() => process.kill(pid, 0)).not.toThrow();
    expect(readLock(home)).toBeNull();
    expect(acquireLock(home).pid).toBe(process.pid);
    releaseLock(home);
    await gone;
  });

  it("a live daemon whose name holds ') Z (' still holds its lock", async () => {
    const dir = tempDir();
    // comm is the executable's name: this one would fool a parser that cuts at the first ')'.
    const binary = join(dir, 'x) Z (y');
    copyFileSync('/bin/sleep', binary);
    chmodSync(binary, 0o755);
    const child = spawn(binary, ['30'], { stdio: 'ignore' });
    const gone = exited(child);
    const pid = child.pid!;
    const home = tempDir();
    writeFileSync(join(home, 'daemon.lock'), JSON.stringify({ pid, started_at: 'x' }));
    const deadline = Date.now() + 5_000;
    while (
      !readFileSync(`/proc/${pid}/stat`, 'utf8').includes('x) Z (y') &&
      Date.now() < deadline
    ) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(readFileSync(`/proc/${pid}/stat`, 'utf8')).toContain('(x) Z (y)');
    expect(readLock(home)?.pid).toBe(pid);
    expect(() => acquireLock(home)).toThrow(`another svc daemon (pid ${pid}) is running`);
    child.kill('SIGKILL');
    await gone;
    expect(readLock(home)).toBeNull();
  });
});
