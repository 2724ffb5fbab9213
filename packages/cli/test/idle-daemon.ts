/**
 * The daemon the `svc node …` test files share the shape of: a real one in a temp home, its one
 * broker slot held by an idle stand-in on a first node, so no node changes behind a test; a
 * one-turn script to create nodes from; and a home no daemon runs on, where a command that sent
 * anything would exit 3, not the usage error's 2. Call it at the top of a file: it registers its
 * own `beforeAll` and `afterAll`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLocalClient } from '@svc/client/node';
import { type DaemonHandle, startDaemon } from '@svc/daemon';
import { afterAll, beforeAll, expect } from 'vitest';
import { inProcessSvc } from './support.ts';

const IDLE_BROKER = fileURLToPath(
  new URL('../../daemon/test/fixtures/idle-broker.ts', import.meta.url),
);

export function useIdleDaemon(prefix: string) {
  let home = '';
  let script = '';
  let daemon: DaemonHandle | undefined;
  const noDaemon = mkdtempSync(join(tmpdir(), `${prefix}none-`));
  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), prefix));
    daemon = await startDaemon({
      home,
      logLevel: 'warn',
      brokers: { concurrency: 1, entry: IDLE_BROKER },
    });
    script = join(home, 'script.json');
    writeFileSync(script, JSON.stringify([{ text: 'all done' }]));
    await createLocalClient({ home }).nodes.create({
      task: 'holds the only broker slot',
      model: { provider: 'scripted', model: 'replay', script: [{ text: 'x' }] },
    });
  });
  afterAll(async () => {
    await daemon?.close();
    rmSync(home, { recursive: true, force: true });
    rmSync(noDaemon, { recursive: true, force: true });
  });
  const svc = inProcessSvc(() => home);
  const offline = inProcessSvc(() => noDaemon);
  return {
    home: () => home,
    script: () => script,
    svc,
    /** `svc node create <task…> --model scripted/replay --script <script> …extra --json`. */
    async createNode(task: string[], ...extra: string[]): Promise<{ id: string; state: string }> {
      const args = ['node', 'create', ...task, '--model', 'scripted/replay'];
      const res = await svc(...args, '--script', script, ...extra, '--json');
      expect(res.code, res.stderr).toBe(0);
      return JSON.parse(res.stdout);
    },
    /** Exit 2 with one `svc:` line matching `message`, and nothing sent. */
    async expectUsage(args: string[], message: RegExp): Promise<void> {
      const res = await offline(...args);
      expect(res.code, `${args.join(' ')}: ${res.stderr}`).toBe(2);
      expect(res.stdout).toBe('');
      const lines = res.stderr.trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^svc: /);
      expect(lines[0]).toMatch(message);
    },
  };
}
