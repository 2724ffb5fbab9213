/**
 * `npm run bench:sandbox`: what confinement adds to a command (issue 28). In one run, in turns:
 *
 * - **bare**: `/bin/sh -c true` spawned and waited for (`child_process.spawn`), nothing else;
 * - **runBash**: the same command through the daemon's `runBash`, unconfined (the owner's);
 * - **sandboxed**: the same command through `runBash` with a node's sandbox plan (bubblewrap,
 *   descriptors for its binds, its control groups made and removed where the host has them).
 *
 * Printed: median and p99 of each, and the sandboxed minus the bare (the added latency, target
 * ≤ 5 ms median), and a node's first sandboxed command: a fresh process that loads the sandbox
 * code, makes its plan and runs one command (target ≤ 100 ms), beside a fresh process that
 * spawns the bare command once. Env: BENCH_RUNS (per side, default 300), BENCH_FIRSTS (20).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { makePlan } from '../src/sandbox/plan.ts';
import { probeSandbox } from '../src/sandbox/probe.ts';
import { loadSandboxSettings } from '../src/sandbox/settings.ts';
import { runBash } from '../src/services/bash.ts';

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
  scopes: ['svc:llm', 'svc:act', `svc:files:read:user:/tmp`],
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

const sides = {
  bare,
  runBash: async () => {
    await runBash(input, stop, null);
  },
  sandboxed: async () => {
    const result = await runBash(input, stop, { plan });
    if (result.exit_code !== 0) throw new Error(`sandboxed command failed: ${result.stderr}`);
  },
};
type Side = keyof typeof sides;
const times: Record<Side, number[]> = { bare: [], runBash: [], sandboxed: [] };

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

/** A fresh process: time from its start to its first command done (wall, measured outside). */
function fresh(kind: 'bare' | 'sandboxed'): number {
  const code =
    kind === 'bare'
      ? "import('node:child_process').then(({spawnSync}) => spawnSync('/bin/sh', ['-c', 'true']))"
      : `const [{ makePlan }, { probeSandbox }, { loadSandboxSettings }, { runBash }] = await Promise.all([
          import(${JSON.stringify(new URL('../src/sandbox/plan.ts', import.meta.url).href)}),
          import(${JSON.stringify(new URL('../src/sandbox/probe.ts', import.meta.url).href)}),
          import(${JSON.stringify(new URL('../src/sandbox/settings.ts', import.meta.url).href)}),
          import(${JSON.stringify(new URL('../src/services/bash.ts', import.meta.url).href)}),
        ]);
        const plan = ${JSON.stringify(plan)};
        const r = await runBash({ command: 'true', cwd: ${JSON.stringify(worktree)} }, new AbortController().signal, { plan });
        if (r.exit_code !== 0) process.exit(1);`;
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`fresh ${kind} failed`);
  return performance.now() - t0;
}
const first: Record<'bare' | 'sandboxed', number[]> = { bare: [], sandboxed: [] };
for (let i = 0; i < FIRSTS; i++) {
  first.bare.push(fresh('bare'));
  first.sandboxed.push(fresh('sandboxed'));
}

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
console.log(row('runBash, unconfined', times.runBash, times.bare));
console.log(row('runBash, sandboxed', times.sandboxed, times.bare));
console.log('');
console.log(
  '| first command of a fresh process | median ms | p99 ms | added (median) ms | ÷ bare |',
);
console.log('|---|---|---|---|---|');
console.log(row('bare: node + one spawn', first.bare, first.bare));
console.log(row('sandboxed: node + load + plan + one command', first.sandboxed, first.bare));
const added = q(times.sandboxed, 0.5) - q(times.bare, 0.5);
const firstAdded = q(first.sandboxed, 0.5) - q(first.bare, 0.5);
console.log(
  `\ntargets: added per command ${ms(added)} ms (≤ 5: ${added <= 5 ? 'met' : 'NOT met'}); first command added ${ms(firstAdded)} ms (≤ 100: ${firstAdded <= 100 ? 'met' : 'NOT met'})`,
);
rmSync(home, { recursive: true, force: true });
