/**
 * A node's sandbox joins its control groups before anything of it runs: every process of it —
 * the executor and each command — is in the session's own `pids` and `memory` groups (cgroup
 * v1: the shell that becomes bwrap writes `0` to each group's `tasks`, moving itself alone, so
 * the join skips the kernel's slow lock; v2: `cgroup.procs`). Real bubblewrap and executor;
 * where the host gives no writable group, there is nothing to test.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makePlan } from '../../src/sandbox/plan.ts';
import { probeSandbox } from '../../src/sandbox/probe.ts';
import { openSession } from '../../src/sandbox/session.ts';
import { loadSandboxSettings } from '../../src/sandbox/settings.ts';
import { processesWhere } from '../processes.ts';

const home = mkdtempSync(join(tmpdir(), 'svc-groups-'));
const worktree = join(home, 'worktrees', 'nd_groups');
mkdirSync(worktree, { recursive: true });
const host = probeSandbox(home);
afterAll(() => rmSync(home, { recursive: true, force: true }));

/** Host pids whose command line starts with `prefix`. */
const processes = (prefix: string) => processesWhere((line) => line.startsWith(prefix));

/** The groups a process is in, by controller (`pids`, `memory`, `` for v2's). */
function groupsOf(pid: number): Map<string, string> {
  const groups = new Map<string, string>();
  for (const line of readFileSync(`/proc/${pid}/cgroup`, 'utf8').trim().split('\n')) {
    const [, controllers = '', path = ''] = line.split(':');
    for (const c of controllers.split(',')) groups.set(c, path);
  }
  return groups;
}

describe.skipIf(!host.ready || host.cgroup === null)("a node's sandbox in its groups", () => {
  it('holds its executor and its commands in its own pids and memory groups', async () => {
    const plan = makePlan({
      settings: loadSandboxSettings(home),
      host,
      svcHome: home,
      scopes: ['svc:llm', 'svc:act'],
      worktree,
    });
    const session = await openSession(plan);
    const stop = new AbortController();
    const mark = `${process.pid}${Date.now()}`;
    try {
      const running = session.run(
        { command: `exec sleep ${mark}`, cwd: worktree, env: { PATH: '/usr/bin:/bin' } },
        stop.signal,
      );
      let sleeper: number | undefined;
      for (let i = 0; i < 2_000 && sleeper === undefined; i++) {
        sleeper = processes(`sleep\0${mark}`)[0];
        if (sleeper === undefined) await new Promise((r) => setTimeout(r, 5));
      }
      expect(sleeper).toBeDefined();
      const executor = processes('/run/svc/').find((pid) => {
        const stat = readFileSync(`/proc/${sleeper}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid;
      });
      expect(executor).toBeDefined();
      const own = groupsOf(process.pid);
      for (const pid of [sleeper!, executor!]) {
        const groups = groupsOf(pid);
        const controllers = host.cgroup?.kind === 'v1' ? ['pids', 'memory'] : [''];
        for (const c of controllers) {
          // Below this process's own group, in one named for this process's session.
          expect(groups.get(c)).not.toBe(own.get(c));
          expect(groups.get(c)).toMatch(
            new RegExp(`/svc-sandbox/[0-9a-f]{16}/${process.pid}-session-\\d+$`),
          );
        }
      }
      stop.abort();
      await running;
    } finally {
      session.close();
    }
  });
});
