/**
 * `bench:nodes` splits the machine's CPU per node by whom (`bench/nodes-cpu.ts`): the daemon, its
 * agent hosts (alive, or ended and reaped by the daemon), and the rest. Checked on arithmetic
 * and on real processes: a stand-in daemon (a Node process) whose Node children burn a known
 * amount of CPU time, not of wall time, so a loaded machine changes nothing.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { type CpuSnapshot, cpuSnapshot, cpuSplit } from '../bench/nodes-cpu.ts';

const main = (ownMs: number, waitMs = 0) => ({ ownMs, waitMs });

describe('cpuSplit', () => {
  it('counts the daemon, live hosts, hosts started and hosts ended during the run', () => {
    const before: CpuSnapshot = {
      machineMs: 1_000,
      daemon: main(100, 10),
      daemonReapedMs: 0,
      hosts: new Map([
        [1, main(50, 5)],
        [2, main(30, 1)],
      ]),
    };
    const after: CpuSnapshot = {
      machineMs: 2_000,
      daemon: main(400, 60),
      // Host 2 ended and was reaped: all of its 70 ms, 30 of them before the run.
      daemonReapedMs: 70,
      hosts: new Map([
        [1, main(250, 25)],
        [3, main(40, 4)], // started during the run
      ]),
    };
    expect(cpuSplit(before, after)).toEqual({
      machine: 1_000,
      daemon: 300,
      hosts: 200 + 40 + (70 - 30),
      daemonWait: 50,
      hostsWait: 20 + 4,
    });
  });
});

describe('cpuSnapshot on real processes', () => {
  let daemon: ChildProcess | undefined;
  afterEach(() => {
    daemon?.kill('SIGKILL');
  });

  // A host stand-in: uses BURN_MS of CPU time, says so, then ends, or (`stay`) stays until its
  // stdin ends (its daemon gone: none is left behind).
  const burn = `
    const until = Number(process.env.BURN_MS) * 1000;
    while (process.cpuUsage().user + process.cpuUsage().system < until) {}
    process.stdout.write('burnt\\n');
    if (process.argv[1] === 'stay') process.stdin.once('end', () => process.exit(0)).resume();
  `;
  // The daemon stand-in: two hosts, one that ends (and is reaped) and one that stays; it prints
  // `ready` once the first has been reaped and the second has burnt its time.
  const stand = `
    const { spawn } = require('node:child_process');
    let left = 2;
    const one = () => { if (--left === 0) console.log('ready'); };
    for (const mode of ['end', 'stay']) {
      const host = spawn(process.execPath, ['-e', process.env.BURN, mode], { stdio: ['pipe', 'pipe', 'inherit'] });
      if (mode === 'end') host.once('exit', one);
      else host.stdout.once('data', one);
    }
    process.stdin.resume();
  `;

  it('finds the CPU of hosts alive and hosts reaped by the daemon', async () => {
    const ms = 300;
    daemon = spawn(process.execPath, ['-e', stand], {
      stdio: ['pipe', 'pipe', 'inherit'],
      env: { ...process.env, BURN: burn, BURN_MS: String(ms) },
    });
    const before = cpuSnapshot(daemon.pid!);
    const lines = createInterface({ input: daemon.stdout! });
    await once(lines, 'line');
    const split = cpuSplit(before, cpuSnapshot(daemon.pid!));
    // Both children's start-up and burn, within /proc's 10 ms ticks; the machine at least that.
    expect(split.hosts).toBeGreaterThanOrEqual(2 * ms - 20);
    expect(split.machine).toBeGreaterThanOrEqual(split.hosts + split.daemon - 20);
    expect(split.daemon).toBeLessThan(split.hosts);
  });
});
