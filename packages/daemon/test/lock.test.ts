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

describe.runIf(linux)('lock of a pid taken by another process since', () => {
  it('holds nothing: start takes it over, and the other process lives on', async () => {
    const home = tempDir();
    const child = spawn('sleep', ['30'], { stdio: 'ignore' });
    const gone = exited(child);
    const pid = child.pid!;
    // The daemon that wrote it started at another tick than the process now holding its pid.
    const stale = { pid, started_at: '2020-01-01T00:00:00Z', start_ticks: '1' };
    writeFileSync(join(home, 'daemon.lock'), JSON.stringify(stale));
    expect(readLock(home)).toBeNull();
    const mine = acquireLock(home);
    expect(mine.pid).toBe(process.pid);
    expect(mine.start_ticks).toMatch(/^\d+$/);
    expect(readLock(home)).toEqual(mine); // this process, at its own start tick, holds it
    // alive and untouched: running or asleep (a child just spawned may still be running), no zombie
    expect(state(pid)).toMatch(/^[RSD]$/);
    releaseLock(home);
    child.kill('SIGKILL');
    await gone;
  });

  it('of processes taking over one stale lock at once, exactly one wins', async () => {
    const lockModule = new URL('../src/lifecycle/lock.ts', import.meta.url).href;
    for (let trial = 0; trial < 5; trial++) {
      const home = tempDir();
      writeFileSync(
        join(home, 'daemon.lock'),
        JSON.stringify({ pid: 999_999_999, started_at: 'x' }),
      );
      // Each waits for the same instant, then tries; a winner holds on until every other has
      // said how it fared (its stdin closes then), so no late starter finds a winner gone.
      const at = Date.now() + 1_500;
      const script = `
        const { acquireLock } = await import(${JSON.stringify(lockModule)});
        while (Date.now() < ${at}) {}
        let won = false;
        try { acquireLock(${JSON.stringify(home)}); won = true; } catch {}
        console.log(won ? 'won' : 'lost');
        await new Promise((r) => process.stdin.on('end', r).resume());`;
      const children = Array.from({ length: 6 }, () =>
        spawn(process.execPath, ['--input-type=module', '-e', script], {
          stdio: ['pipe', 'pipe', 'inherit'],
        }),
      );
      const outcomes = await Promise.all(
        children.map(
          (child) =>
            new Promise<string>((resolve) => {
              let out = '';
              child.stdout.on('data', (chunk: Buffer) => {
                out += chunk;
                if (out.includes('\n')) resolve(out.trim());
              });
              child.once('exit', () => resolve(out.trim()));
            }),
        ),
      );
      await Promise.all(
        children.map((child) => {
          if (child.exitCode !== null || child.signalCode !== null) return undefined;
          const exited = new Promise((resolve) => child.once('exit', resolve));
          child.stdin.end();
          return exited;
        }),
      );
      expect(
        outcomes.filter((o) => o === 'won'),
        `trial ${trial}: ${outcomes}`,
      ).toHaveLength(1);
    }
  }, 60_000);
});
