/**
 * The footprint of `bench:nodes` reads the daemon's process tree, whatever its layout: a direct
 * child running Node is a host (broker or agent host), anything else below is a sandbox, and the
 * work is counted apart. Real processes: a stand-in daemon (Node) starting one host (Node) that
 * runs a command (`sleep`), and a non-Node process of its own (as a sandbox started by the daemon
 * itself would be).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { hostsOf, memOf, pidsBelow, processesBelow, treeMem } from '../bench/nodes-rss.ts';
import { target } from '../bench/nodes-stats.ts';

const running: ChildProcess[] = [];
afterEach(async () => {
  for (const child of running.splice(0)) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = once(child, 'exit');
    // Its own process group: the stand-in daemon and all it started.
    process.kill(-child.pid!, 'SIGKILL');
    await exited;
  }
});

/** The stand-in daemon; answers once its host's command and its own `sleep` run. */
async function standInDaemon(): Promise<number> {
  const host = `
    const { spawn } = require('node:child_process');
    const c = spawn('sleep', ['297'], { stdio: 'ignore' });
    c.on('spawn', () => console.log('up'));
    setInterval(() => {}, 1e6);`;
  // 'up' once both have started: its own sleep exec'd, and its host's command.
  const daemon = `
    const { spawn } = require('node:child_process');
    const { createInterface } = require('node:readline');
    let left = 2;
    const ready = () => { if (--left === 0) console.log('up'); };
    spawn('sleep', ['298'], { stdio: 'ignore' }).on('spawn', ready);
    const h = spawn(process.execPath, ['-e', ${JSON.stringify(host)}], { stdio: ['ignore', 'pipe', 'inherit'] });
    createInterface({ input: h.stdout }).once('line', ready);
    setInterval(() => {}, 1e6);`;
  const child = spawn(process.execPath, ['-e', daemon], {
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: true,
  });
  running.push(child);
  await once(createInterface({ input: child.stdout! }), 'line');
  return child.pid!;
}

describe('bench:nodes footprint', () => {
  it('counts direct Node children as hosts, other processes as sandboxes, the work apart', async () => {
    const pid = await standInDaemon();
    const tree = treeMem(pid, (cmdline) => cmdline === 'sleep 297');
    expect(tree.hostCount).toBe(1);
    expect(tree.commandCount).toBe(1);
    // The daemon's own `sleep 298`: a process below it that is no host.
    expect(tree.sandboxCount).toBe(1);
    expect(hostsOf(pid)).toHaveLength(1);
    expect(processesBelow(pid)).toBe(3);
    expect(pidsBelow(pid, (cmdline) => cmdline.startsWith('sleep '))).toHaveLength(2);
    for (const part of [tree.daemon, tree.hosts, tree.sandboxes, tree.commands]) {
      expect(part.pssKb).toBeGreaterThan(0);
      // PSS shares what RSS counts whole.
      expect(part.pssKb).toBeLessThanOrEqual(part.rssKb);
    }
    expect(tree.unreadable).toBe(0);
  });

  it('reads RSS alone when asked, PSS then 0', async () => {
    const pid = await standInDaemon();
    const tree = treeMem(pid, () => false, false);
    expect(tree.hosts.rssKb).toBeGreaterThan(0);
    expect(tree.hosts.pssKb).toBe(0);
    expect(memOf(pid).pssKb).toBeGreaterThan(0);
  });

  it('checks a target: within ✔, beyond or unmeasured ✘', () => {
    expect(target(30, 30)).toBe('✔');
    expect(target(30.1, 30)).toBe('✘');
    expect(target(Number.NaN, 30)).toBe('✘');
  });
});
