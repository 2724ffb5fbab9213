/**
 * `brokers.hostNiceness` (`SVC_HOST_NICENESS`): each agent host runs at that niceness, and so do
 * the commands of its nodes (their sandboxes inherit it), while the daemon keeps its own; where
 * the kernel shares the CPU by session (autogroup), the host's session gets it too.
 */
import { existsSync, readFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseNiceness } from '../src/supervisor/host-niceness.ts';
import {
  agentHosts,
  bash,
  createNode,
  scripted,
  submit,
  toolResults,
  waitForNode,
} from './broker-fixtures.ts';
import { startTestDaemon, type TestDaemon } from './helpers.ts';

const NICENESS = 7;
let t: TestDaemon;

beforeAll(async () => {
  t = await startTestDaemon({ brokers: { hostNiceness: NICENESS } });
});
afterAll(async () => {
  await t?.stop();
});

/** The agent host processes of this daemon. */
const hosts = (): number[] => [...agentHosts(t.home).keys()];

describe('agent hosts at a lower priority', () => {
  it("run the nodes' commands at the hosts' niceness, the daemon at its own", async () => {
    const node = await createNode(t.call, {
      task: 'how nice',
      model: scripted('nice', [bash('nice'), submit({ ok: true }, 'done')]),
    });
    await waitForNode(t.call, node.id, (n) => n.state === 'done', 60_000);
    const [result] = await toolResults(t.call, node.id, 1);
    expect(JSON.stringify(result?.output)).toContain(`${NICENESS}\\n`);

    const running = hosts();
    expect(running.length).toBeGreaterThan(0);
    for (const pid of running) {
      expect(getPriority(pid)).toBe(NICENESS);
      const autogroup = `/proc/${pid}/autogroup`;
      if (existsSync(autogroup)) {
        expect(readFileSync(autogroup, 'utf8')).toMatch(new RegExp(`nice ${NICENESS}\\s*$`));
      }
    }
    expect(getPriority()).toBe(0);
  });
});

describe('SVC_HOST_NICENESS', () => {
  it('takes 0 to 19, and nothing when unset', () => {
    expect(parseNiceness(undefined, 'SVC_HOST_NICENESS')).toBeUndefined();
    expect(parseNiceness(' ', 'SVC_HOST_NICENESS')).toBeUndefined();
    expect(parseNiceness('0', 'SVC_HOST_NICENESS')).toBe(0);
    expect(parseNiceness('19', 'SVC_HOST_NICENESS')).toBe(19);
  });

  it('refuses anything else, naming the variable', () => {
    for (const bad of ['-1', '20', '2.5', 'low']) {
      expect(() => parseNiceness(bad, 'SVC_HOST_NICENESS')).toThrow(/SVC_HOST_NICENESS/);
    }
  });
});
