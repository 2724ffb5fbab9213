/** `svc --help` as `gh` and `docker` print theirs: commands under headings, examples per command. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { inProcessSvc } from './support.ts';

const home = mkdtempSync(join(tmpdir(), 'svc-cli-help-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));
const svc = inProcessSvc(() => home);

describe('svc --help', () => {
  it('groups the commands under headings, agents first, each command once', async () => {
    const res = await svc('--help');
    expect(res.code).toBe(0);
    const headings = res.stdout.split('\n').filter((l) => /^[A-Z][\w ]*:$/.test(l));
    expect(headings).toEqual([
      'Options:',
      'Agents:',
      'Watch:',
      'Daemon and access:',
      'Data and tools:',
      'More:',
    ]);
    const agents = res.stdout.slice(res.stdout.indexOf('Agents:'), res.stdout.indexOf('Watch:'));
    expect(agents).toMatch(/^ {2}node /m);
    expect(agents).toMatch(/^ {2}run /m);
    expect(res.stdout.match(/^ {2}node /gm)).toHaveLength(1);
    expect(res.stdout).toMatch(/^ {2}help \[command\]/m);
  });

  it.each([
    [['node', 'create'], /svc node create "Summarize README.md" --wait/],
    [['node', 'wait'], /--json --jq '.node.outcome.result'/],
    [['run', 'start'], /svc run start "Draft the release notes" --wait/],
    [['human', 'respond'], /--choice approve/],
    [['sys', 'connect'], /svc sys connect --open/],
    [['models', 'install'], /svc models install anthropic/],
    [['events'], /svc events -f --since 10m/],
    [['profile', 'ensure'], /--script worker-turns.json/],
    [['completion'], /source <\(svc completion bash\)/],
  ])('svc %j --help ends with examples', async (args, example) => {
    const res = await svc(...args, '--help');
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/\nExamples:\n/);
    expect(res.stdout).toMatch(example);
  });
});
