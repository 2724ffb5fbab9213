/**
 * `SVC_HOST_CPU_PROF=<dir>`: an agent host (a real process of `src/broker/host.ts`) writes its
 * V8 CPU profile into the directory when it ends, even when the supervisor kills it (a lull, the
 * daemon's close): a profiling host is asked to end itself first, as a SIGKILL would lose it.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnHost } from '../src/supervisor/agent-host.ts';

const dir = mkdtempSync(join(tmpdir(), 'svc-host-prof-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const entry = fileURLToPath(new URL('../src/broker/host.ts', import.meta.url));

describe('an agent host under SVC_HOST_CPU_PROF', () => {
  it('writes its CPU profile there when it is killed', async () => {
    const profiles = join(dir, 'profiles');
    const host = spawnHost({
      entry,
      cwd: dir,
      env: { ...process.env, SVC_HOST_CPU_PROF: profiles },
      logDir: dir,
      marginMs: 400,
      capacity: 1,
      tmpRoot: dir,
    });
    await host.kill();
    expect(readdirSync(profiles).filter((f) => f.endsWith('.cpuprofile'))).toHaveLength(1);
  }, 30_000);

  it('writes none without it', async () => {
    const env = { ...process.env };
    delete env.SVC_HOST_CPU_PROF;
    const host = spawnHost({
      entry,
      cwd: dir,
      env,
      logDir: dir,
      marginMs: 400,
      capacity: 1,
      tmpRoot: dir,
    });
    await host.kill();
    expect(readdirSync(dir).some((f) => f.endsWith('.cpuprofile'))).toBe(false);
  });
});
