/**
 * A node's launch opens its log file first (on the thread pool, with its worktree): a log that
 * cannot be opened fails the launch, as a broker that could not start, rather than losing the
 * node's output; once its relaunch budget is spent the node fails, saying why.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  createNode,
  isFinal,
  nodeEvents,
  scripted,
  submit,
  waitForNode,
} from './broker-fixtures.ts';
import { startTestDaemon } from './helpers.ts';

describe('a node whose log file cannot be opened', () => {
  it('is never started: it fails once its relaunches are spent, each fault saying why', async () => {
    const t = await startTestDaemon();
    try {
      // A file where the brokers' logs go: every open under it fails (ENOTDIR), root or not.
      const logs = join(t.home, 'logs', 'brokers');
      rmSync(logs, { recursive: true, force: true });
      writeFileSync(logs, 'not a directory');
      const node = await createNode(t.call, {
        task: 'never runs',
        model: scripted('unlogged', [submit({ ran: true }, 'ran')]),
      });
      const ended = await waitForNode(t.call, node.id, isFinal);
      expect(ended.state).toBe('failed');
      expect(ended.usage.turns).toBe(0);
      const faults = (await nodeEvents(t.call, node.id, ['node.fault'])).map(
        (e) => e.payload.fault as { code: string; message: string },
      );
      expect(faults.length).toBeGreaterThan(1);
      for (const fault of faults) {
        expect(fault.code).toBe('broker_crashed');
        expect(fault.message).toMatch(/the broker could not start: .*ENOTDIR/);
      }
    } finally {
      await t.stop();
    }
  });
});
