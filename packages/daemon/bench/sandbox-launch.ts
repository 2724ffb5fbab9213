/**
 * For `npm run bench:sandbox`: how long a node's sandbox start holds its agent host's event loop
 * (every other node of the host waits meanwhile), started by the host's launcher
 * (`src/sandbox/launcher.ts`) or by the host's own `spawn` (`SVC_SANDBOX_LAUNCHER=none`). Each
 * side runs in a fresh process holding an agent host's size of heap (`BALLAST_MB` of objects: a
 * fork copies the page tables of all of it), opening `count` sandboxes one after the other while
 * a `setImmediate` chain ticks; a start's figure is the longest the chain waited until the
 * sandbox answered. Beside them, the same process's bare `spawn` of `/bin/sh -c true`.
 */
import { spawnSync } from 'node:child_process';
import type { SandboxPlan } from '../src/sandbox/plan.ts';

export const BALLAST_MB = 80;

export function loopHeld(
  kind: 'launcher' | 'spawn' | 'bare',
  plan: SandboxPlan,
  count: number,
): number[] {
  const session = JSON.stringify(new URL('../src/sandbox/session.ts', import.meta.url).href);
  const code = `
    const ballast = [];
    for (let i = 0; i < ${BALLAST_MB * 1024}; i++) ballast.push({ i, s: 'x'.repeat(900) + i });
    const { openSession } = await import(${session});
    const { spawn } = await import('node:child_process');
    const plan = ${JSON.stringify(plan)};
    const start = ${
      kind === 'bare'
        ? `() => new Promise((r) => spawn('/bin/sh', ['-c', 'true']).once('close', () => r({ close() {} })))`
        : '() => openSession(plan)'
    };
    await (await start()).close();
    const held = [];
    for (let i = 0; i < ${count}; i++) {
      let last = performance.now();
      let longest = 0;
      let ticking = true;
      const tick = () => {
        const now = performance.now();
        longest = Math.max(longest, now - last);
        last = now;
        if (ticking) setImmediate(tick);
      };
      setImmediate(tick);
      const opened = await start();
      ticking = false;
      tick();
      held.push(longest);
      opened.close();
    }
    // The ballast is read once more, so it lives to the end.
    console.log(JSON.stringify(held), ballast.length > 0 ? '' : '-');
    process.exit(0);`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], {
    encoding: 'utf8',
    env: { ...process.env, SVC_SANDBOX_LAUNCHER: kind === 'spawn' ? 'none' : '' },
  });
  if (r.status !== 0) throw new Error(`loop held (${kind}) failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim()) as number[];
}
