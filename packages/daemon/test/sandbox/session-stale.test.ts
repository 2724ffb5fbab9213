/**
 * A node's sandbox is made again when what it must hide changes: a hidden path a bind shows that
 * comes to exist makes the open session stale (its next command gets a new sandbox, hiding it).
 * A hidden path no bind shows is absent from the sandbox whether it exists or not, so it is not
 * looked up at each command, and its coming to exist keeps the session. Real bubblewrap.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makePlan } from '../../src/sandbox/plan.ts';
import { probeSandbox } from '../../src/sandbox/probe.ts';
import { openSession } from '../../src/sandbox/session.ts';
import { loadSandboxSettings } from '../../src/sandbox/settings.ts';

const home = mkdtempSync(join(tmpdir(), 'svc-stale-'));
const worktree = join(home, 'worktrees', 'nd_stale');
const shown = join(tmpdir(), `svc-stale-shown-${process.pid}`);
const unseen = join(tmpdir(), `svc-stale-unseen-${process.pid}`);
mkdirSync(worktree, { recursive: true });
mkdirSync(shown, { recursive: true });
const host = probeSandbox(home);
afterAll(() => {
  for (const dir of [home, shown, unseen]) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!host.ready)("a node's sandbox and the paths it hides", () => {
  it('goes stale when a hidden path a bind shows appears, not for one no bind shows', async () => {
    const settings = loadSandboxSettings(home);
    const plan = makePlan({
      settings: { ...settings, hidden: [...settings.hidden, join(shown, 'late.key'), unseen] },
      host,
      svcHome: home,
      scopes: ['svc:llm', 'svc:act', `svc:files:read:user:${shown}` as never],
      worktree,
    });
    const session = await openSession(plan);
    try {
      writeFileSync(unseen, 'not in the sandbox');
      expect(session.stale()).toBe(false);
      writeFileSync(join(shown, 'late.key'), 'shown by the bind');
      expect(session.stale()).toBe(true);
    } finally {
      session.close();
    }
  });
});
