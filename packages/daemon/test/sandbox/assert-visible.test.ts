import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/errors.ts';
import { assertVisible } from '../../src/sandbox/command.ts';
import type { SandboxPlan } from '../../src/sandbox/plan.ts';

// Real directories and links: the check resolves what the host holds, so nothing is faked.
const root = mkdtempSync(join(tmpdir(), 'svc-visible-'));
const shown = join(root, 'shown');
const outside = join(root, 'outside');
mkdirSync(join(shown, 'sub'), { recursive: true });
mkdirSync(outside);
symlinkSync(outside, join(shown, 'escape'));
symlinkSync(join(shown, 'sub'), join(shown, 'inward'));
symlinkSync(join(root, 'nothing'), join(shown, 'dangling'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const plan = {
  mode: 'on',
  host: { ready: true, bwrap: '/usr/bin/bwrap' },
  layers: [{ path: shown, kind: 'rw' }],
} as unknown as SandboxPlan;

function refusal(cwd: string): unknown {
  try {
    assertVisible(plan, cwd);
  } catch (error) {
    return error;
  }
  return null;
}

describe('assertVisible: the cwd of a confined command', () => {
  it('takes a directory the sandbox shows, by its path or through a link that stays inside', () => {
    expect(refusal(shown)).toBeNull();
    expect(refusal(join(shown, 'sub'))).toBeNull();
    expect(refusal(join(shown, 'inward'))).toBeNull();
    expect(refusal(`${shown}/sub/../sub/.`)).toBeNull();
    expect(refusal('/tmp')).toBeNull();
  });

  it('refuses a link that leads outside the view, though its own path is inside', () => {
    const error = refusal(join(shown, 'escape'));
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'invalid_request', field: 'cwd' });
  });

  it('refuses a path outside, a missing one and a dangling link alike', () => {
    const messages = [outside, join(shown, 'missing'), join(shown, 'dangling')].map((cwd) => {
      const error = refusal(cwd);
      expect(error).toMatchObject({ code: 'invalid_request', field: 'cwd' });
      return (error as Error).message.replace(JSON.stringify(cwd), 'X');
    });
    expect(new Set(messages).size).toBe(1);
  });
});
