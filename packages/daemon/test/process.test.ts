import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readLock, spawnDaemon } from '../src/index.ts';
import { DAEMON_MAIN, daemonProcesses, json, socketFetch } from './helpers.ts';
import { readFrames, seqs } from './sse.ts';

const { newHome, pids } = daemonProcesses();

function runMain(home: string): {
  child: ChildProcess;
  exit: Promise<{ code: number | null; stderr: string }>;
} {
  const child = spawn(
    process.execPath,
    ['--disable-warning=ExperimentalWarning', DAEMON_MAIN, '--home', home],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  pids.push(child.pid!);
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  return {
    child,
    exit: new Promise((resolve) => child.once('exit', (code) => resolve({ code, stderr }))),
  };
}

async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  ms = 10_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const ownerCall = (home: string) => {
  const token = readFileSync(`${home}/owner.token`, 'utf8').trim();
  return socketFetch(`${home}/daemon.sock`, token);
};

describe('daemon processes', () => {
  it('spawnDaemon starts a detached daemon; a second daemon on the home is refused naming the pid', async () => {
    const home = newHome();
    const { pid, socketPath } = await spawnDaemon({ home });
    pids.push(pid);
    expect(socketPath).toBe(`${home}/daemon.sock`);
    expect(readLock(home)).toMatchObject({ pid, started_at: expect.any(String) });

    const second = runMain(home);
    const { code, stderr } = await second.exit;
    expect(code).toBe(1);
    expect(stderr).toContain(`another svc daemon (pid ${pid}) is running on ${home}`);
    await expect(spawnDaemon({ home })).rejects.toThrow(`pid ${pid}`);

    const res = await ownerCall(home)('/v1/shutdown', { method: 'POST' });
    expect(await res.json()).toEqual({ ok: true });
    await waitFor('the daemon to exit', () => (readLock(home) === null ? true : undefined));
    expect(existsSync(`${home}/daemon.sock`)).toBe(false);
    expect(existsSync(`${home}/daemon.lock`)).toBe(false);
  });

  it("spawnDaemon runs the daemon with glibc's trim threshold fixed, unless the environment sets it", async () => {
    const environ = (pid: number) =>
      readFileSync(`/proc/${pid}/environ`, 'utf8')
        .split('\0')
        .filter((v) => v.startsWith('MALLOC_TRIM_THRESHOLD_='));
    const stop = async (home: string) => {
      await ownerCall(home)('/v1/shutdown', { method: 'POST' });
      await waitFor('the daemon to exit', () => (readLock(home) === null ? true : undefined));
    };
    const given = process.env.MALLOC_TRIM_THRESHOLD_;
    try {
      delete process.env.MALLOC_TRIM_THRESHOLD_;
      const home = newHome();
      const { pid } = await spawnDaemon({ home });
      pids.push(pid);
      expect(environ(pid)).toEqual(['MALLOC_TRIM_THRESHOLD_=131072']);
      await stop(home);

      process.env.MALLOC_TRIM_THRESHOLD_ = '65536';
      const mine = newHome();
      const second = await spawnDaemon({ home: mine });
      pids.push(second.pid);
      expect(environ(second.pid)).toEqual(['MALLOC_TRIM_THRESHOLD_=65536']);
      await stop(mine);
    } finally {
      if (given === undefined) delete process.env.MALLOC_TRIM_THRESHOLD_;
      else process.env.MALLOC_TRIM_THRESHOLD_ = given;
    }
  });

  it('of two spawnDaemon racing on one home, the loser is refused naming the winner, in one line', async () => {
    const home = newHome();
    const results = await Promise.allSettled([spawnDaemon({ home }), spawnDaemon({ home })]);
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r) => r.status === 'rejected');
    expect(won).toHaveLength(1);
    const winner = (won[0] as PromiseFulfilledResult<{ pid: number }>).value.pid;
    pids.push(winner);
    expect(lost).toHaveLength(1);
    const error = (lost[0] as PromiseRejectedResult).reason as Error & { code?: string };
    expect(error.code).toBe('daemon_running');
    expect(error.message).toBe(`another svc daemon (pid ${winner}) is running on ${home}`);
    await ownerCall(home)('/v1/shutdown', { method: 'POST' });
    await waitFor('the daemon to exit', () => (readLock(home) === null ? true : undefined));
  });

  it('spawnDaemon reports a daemon that fails to start, quoting the log tail', async () => {
    const home = newHome();
    writeFileSync(
      `${home}/svc.db`,
      'this is not a database, but it is long enough to be read as one',
    );
    const failure = await spawnDaemon({ home }).catch((error: Error) => error);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toMatch(
      /the svc daemon exited with code 1; last lines of .*daemon\.log:\n.*svc daemon: /s,
    );
    expect(readLock(home)).toBeNull();
  });

  it('kill -9 then restart keeps tokens and events; ?after=N continues exactly', async () => {
    const home = newHome();
    const first = await spawnDaemon({ home });
    pids.push(first.pid);
    const call = ownerCall(home);
    const minted = (await (
      await call('/v1/connect', json({ app_id: 'survivor', scopes: ['svc:llm'] }))
    ).json()) as { token: string };
    const before = await readFrames(await call('/v1/events?after=0'), (f) =>
      f.some((x) => x.event === 'token.created' && x.data?.includes('survivor')),
    );
    const lastSeq = seqs(before.frames).at(-1)!;

    process.kill(first.pid, 'SIGKILL');
    await waitFor('the pid to die', () => (readLock(home) === null ? true : undefined));
    expect(existsSync(`${home}/daemon.lock`)).toBe(true); // stale, taken over below

    const second = await spawnDaemon({ home });
    pids.push(second.pid);
    expect(readLock(home)?.pid).toBe(second.pid);
    const again = ownerCall(home);
    const grant = await again('/v1/grant', { token: minted.token });
    expect(grant.status).toBe(200);
    expect(await grant.json()).toMatchObject({ app_id: 'survivor' });

    const after = await readFrames(await again(`/v1/events?after=${lastSeq}`), (f) =>
      f.some((x) => x.event === 'daemon.started'),
    );
    expect(seqs(after.frames)[0]).toBe(lastSeq + 1);
    const all = seqs(
      (await readFrames(await again('/v1/events?after=0'), (f) => seqs(f).includes(lastSeq + 1)))
        .frames,
    );
    expect(all).toEqual(Array.from({ length: all.length }, (_, i) => i + 1));
    process.kill(second.pid, 'SIGTERM');
    await waitFor('the daemon to exit', () => (readLock(home) === null ? true : undefined));
  });

  it('SIGTERM drains an in-flight request and exits 0', async () => {
    const home = newHome();
    const { child, exit } = runMain(home);
    await waitFor('healthz', async () => {
      if (!existsSync(`${home}/owner.token`)) return undefined;
      const res = await socketFetch(`${home}/daemon.sock`, null)('/healthz').catch(() => null);
      return res?.status === 200 ? true : undefined;
    });
    const call = ownerCall(home);
    const inFlight = call('/v1/bash', json({ command: 'sleep 0.5; echo drained', cwd: home }));
    await new Promise((r) => setTimeout(r, 150));
    child.kill('SIGTERM');
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ exit_code: 0, stdout: 'drained\n' });
    expect((await exit).code).toBe(0);
    expect(existsSync(`${home}/daemon.sock`)).toBe(false);
    expect(existsSync(`${home}/daemon.lock`)).toBe(false);
    const log = readFileSync(`${home}/logs/daemon.log`, 'utf8');
    expect(log).toContain('daemon stopped');
    expect(log).not.toContain(readFileSync(`${home}/owner.token`, 'utf8').trim());
  });
});
