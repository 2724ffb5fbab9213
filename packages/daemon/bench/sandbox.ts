/**
 * `npm run bench:sandbox`: what confinement adds to a command (issue 28). In one run, in turns:
 *
 * - **bare**: `/bin/sh -c true` spawned and waited for (`child_process.spawn`), nothing else;
 * - **runBash**: the same command through the daemon's `runBash`, unconfined (the owner's);
 * - **a sandbox of its own**: the same command through `runBash` in a sandbox made for it
 *   (bubblewrap, descriptors for its binds, its control groups made and removed where the host
 *   has them): the fall-back when a reused sandbox cannot be had;
 * - **a reused sandbox**: the same command in a node's one sandbox (`sandbox/session.ts`), as
 *   every command of a node after its first runs, and a scoped token's `POST /v1/bash` after its
 *   first (`sandbox/token-sessions.ts`).
 *
 * Printed: median and p99 of each, the added latency over bare (target ≤ 5 ms for a node's
 * command), and a node's first command: its sandbox made, then the command (target ≤ 100 ms),
 * beside a fresh process's first bare spawn; and what a node's sandbox holds resident while it
 * waits for a command (bubblewrap and the executor: RSS and PSS, from `smaps_rollup`). Env:
 * BENCH_RUNS (per side, default 300), BENCH_FIRSTS (20); `SVC_SANDBOX_EXECUTOR=node` measures
 * the Node executor (the fall-back where the C one cannot be built) instead of the C one.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { runBash } from '../src/bash/run.ts';
import { makePlan } from '../src/sandbox/plan.ts';
import { probeSandbox } from '../src/sandbox/probe.ts';
import { openSession } from '../src/sandbox/session.ts';
import { loadSandboxSettings } from '../src/sandbox/settings.ts';
import { BALLAST_MB, loopHeld } from './sandbox-launch.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 300);
const FIRSTS = Number(process.env.BENCH_FIRSTS ?? 20);
const home = mkdtempSync('/tmp/svc-bench-sb-');
const worktree = join(home, 'worktrees', 'nd_bench');
mkdirSync(worktree, { recursive: true });

const host = probeSandbox(home);
if (!host.ready) {
  process.stderr.write(`no sandbox on this host: ${host.reason}\n`);
  process.exit(1);
}
const plan = makePlan({
  settings: loadSandboxSettings(home),
  host,
  svcHome: home,
  scopes: ['svc:llm', 'svc:act', 'svc:files:read:user:/tmp'],
  worktree,
});
const stop = new AbortController().signal;
const input = { command: 'true', cwd: worktree };

function bare(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', 'true'], { stdio: 'ignore' });
    child.once('error', reject);
    child.once('close', () => resolve());
  });
}

const session = openSession(plan);

/** Every process below this one (here: the idle sandbox's), with its resident kB. */
function sandboxMemory(): { name: string; rss: number; pss: number }[] {
  const parent = new Map<number, number>();
  const names = new Map<number, string>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      names.set(Number(entry), stat.slice(stat.indexOf('(') + 1, close));
      parent.set(Number(entry), Number(stat.slice(close + 2).split(' ')[1]));
    } catch {
      // Gone meanwhile.
    }
  }
  const below = (pid: number): boolean => {
    for (
      let p = parent.get(pid), hops = 0;
      p !== undefined && hops < 64;
      p = parent.get(p), hops++
    ) {
      if (p === process.pid) return true;
    }
    return false;
  };
  const field = (text: string, name: string) =>
    Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0);
  return [...parent.keys()].filter(below).map((pid) => {
    const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    return { name: names.get(pid) ?? '?', rss: field(rollup, 'Rss'), pss: field(rollup, 'Pss') };
  });
}
const opened = await session;
if (opened === null) throw new Error("the node's sandbox did not start");
const idle = sandboxMemory();
const sides = {
  bare,
  runBash: async () => {
    await runBash(input, stop, null);
  },
  token: async () => {
    const result = await runBash(input, stop, { plan });
    if (result.exit_code !== 0) throw new Error(`sandboxed command failed: ${result.stderr}`);
  },
  node: async () => {
    const result = await runBash(input, stop, { plan, session: () => session });
    if (result.exit_code !== 0) throw new Error(`node command failed: ${result.stderr}`);
  },
};
type Side = keyof typeof sides;
const times: Record<Side, number[]> = { bare: [], runBash: [], token: [], node: [] };

// Warm-up: the first of each pays for loading code and the kernel's caches.
for (const side of Object.keys(sides) as Side[]) for (let i = 0; i < 10; i++) await sides[side]();
// In turns, so a neighbour's load hits every side alike.
for (let i = 0; i < RUNS; i++) {
  for (const side of Object.keys(sides) as Side[]) {
    const t0 = performance.now();
    await sides[side]();
    times[side].push(performance.now() - t0);
  }
}

/**
 * A node's first command as its broker meets it: in a fresh process that has loaded its code (as
 * a broker has before its first tool call), from asking to done: the node's sandbox made, then
 * the command in it. Beside it, a fresh process's first bare spawn, timed the same way.
 */
function fresh(kind: 'bare' | 'node'): number {
  const here = (path: string) => JSON.stringify(new URL(path, import.meta.url).href);
  const code =
    kind === 'bare'
      ? `const { spawn } = await import('node:child_process');
         const t0 = performance.now();
         await new Promise((r) => spawn('/bin/sh', ['-c', 'true']).once('close', r));
         console.log(performance.now() - t0);`
      : `const [{ openSession }, { runBash }] = await Promise.all([
           import(${here('../src/sandbox/session.ts')}),
           import(${here('../src/bash/run.ts')}),
         ]);
         const plan = ${JSON.stringify(plan)};
         const t0 = performance.now();
         const session = openSession(plan);
         const input = { command: 'true', cwd: ${JSON.stringify(worktree)} };
         const r = await runBash(input, new AbortController().signal, { plan, session: () => session });
         if (r.exit_code !== 0) process.exit(1);
         console.log(performance.now() - t0);
         process.exit(0);`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`fresh ${kind} failed: ${r.stderr}`);
  return Number(r.stdout.trim());
}
const first: Record<'bare' | 'node', number[]> = { bare: [], node: [] };
for (let i = 0; i < FIRSTS; i++) {
  first.bare.push(fresh('bare'));
  first.node.push(fresh('node'));
}
const held = {
  bare: loopHeld('bare', plan, FIRSTS),
  spawn: loopHeld('spawn', plan, FIRSTS),
  launcher: loopHeld('launcher', plan, FIRSTS),
};

const q = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
};
const ms = (x: number) => x.toFixed(2);
const row = (name: string, xs: number[], base: number[]) =>
  `| ${name} | ${ms(q(xs, 0.5))} | ${ms(q(xs, 0.99))} | ${ms(q(xs, 0.5) - q(base, 0.5))} | ${(q(xs, 0.5) / q(base, 0.5)).toFixed(2)}× |`;

const limits =
  host.cgroup !== null ? `cgroup ${host.cgroup.kind}` : host.prlimit !== null ? 'rlimit' : 'none';
console.log(
  `\n${host.version}; limits by ${limits}; ${RUNS} runs per side, ${FIRSTS} fresh processes\n`,
);
console.log('| per command | median ms | p99 ms | added to bare (median) ms | ÷ bare |');
console.log('|---|---|---|---|---|');
console.log(row('bare `/bin/sh -c true`', times.bare, times.bare));
console.log(row('runBash, unconfined (the owner)', times.runBash, times.bare));
console.log(row('runBash, a sandbox of its own per command', times.token, times.bare));
console.log(row("runBash, in a node's (or token's) reused sandbox", times.node, times.bare));
console.log('');
console.log('| first command | median ms | p99 ms | added (median) ms | ÷ bare |');
console.log('|---|---|---|---|---|');
console.log(row('bare: the first spawn of a fresh process', first.bare, first.bare));
console.log(row("a node's first: its sandbox made, then the command", first.node, first.bare));
console.log('');
console.log(
  `| a sandbox started by an agent host (${BALLAST_MB} MB of heap): its event loop held | median ms | p99 ms | added (median) ms | ÷ bare |`,
);
console.log('|---|---|---|---|---|');
console.log(row('bare: a `spawn` of `/bin/sh -c true`', held.bare, held.bare));
console.log(row("started by the host's own `spawn`", held.spawn, held.bare));
console.log(row("started by the host's launcher", held.launcher, held.bare));
console.log('');
console.log("| a node's idle sandbox, per process | RSS MB | PSS MB |");
console.log('|---|---|---|');
const mb = (kb: number) => (kb / 1024).toFixed(1);
for (const p of idle) console.log(`| ${p.name} | ${mb(p.rss)} | ${mb(p.pss)} |`);
const sum = (key: 'rss' | 'pss') => idle.reduce((total, p) => total + p[key], 0);
console.log(`| **all** | **${mb(sum('rss'))}** | **${mb(sum('pss'))}** |`);
const added = q(times.node, 0.5) - q(times.bare, 0.5);
const addedP99 = q(times.node, 0.99) - q(times.bare, 0.99);
const firstAdded = q(first.node, 0.5) - q(first.bare, 0.5);
console.log(
  `\ntargets: a node's command adds ${ms(added)} ms median, ${ms(addedP99)} ms p99 (≤ 5 median: ${added <= 5 ? 'met' : 'NOT met'}); its first adds ${ms(firstAdded)} ms (≤ 100: ${firstAdded <= 100 ? 'met' : 'NOT met'})`,
);
rmSync(home, { recursive: true, force: true });
process.exit(0);
