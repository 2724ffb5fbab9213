/** `svc cron …` against a real daemon, in-process, and its usage errors before any request. */
import { describe, expect, it } from 'vitest';
import { useIdleDaemon } from './idle-daemon.ts';

const idle = useIdleDaemon('svc-cli-c-');
const { svc } = idle;
const CRON_ID = 'cron_01ARZ3NDEKTSV4RRFFQ69G5FAV';

const createCron = async (...extra: string[]) => {
  const res = await svc(
    'cron',
    'create',
    '--schedule',
    '0 0 1 1 *',
    'tidy',
    'the',
    'inbox',
    '--model',
    'scripted/replay',
    '--script',
    idle.script(),
    ...extra,
    '--json',
  );
  expect(res.code, res.stderr).toBe(0);
  return JSON.parse(res.stdout);
};

describe('svc cron', () => {
  it('create, ls, show, pause, resume, poke, run and rm', async () => {
    const cron = await createCron(
      '--timezone',
      'Europe/Paris',
      '--missed',
      'run_once',
      '--label',
      'team=ops',
    );
    expect(cron).toMatchObject({
      name: 'tidy the inbox',
      timezone: 'Europe/Paris',
      missed: 'run_once',
      state: 'active',
      task: { task: 'tidy the inbox', model: { provider: 'scripted' }, metadata: { team: 'ops' } },
    });
    const ls = await svc('cron', 'ls');
    expect(ls.code).toBe(0);
    expect(ls.stdout).toMatch(/ID\s+STATE\s+SCHEDULE\s+NEXT RUN\s+FIRES\s+NAME/);
    expect(ls.stdout).toContain(`${cron.id}  active  0 0 1 1 * (Europe/Paris)`);
    const show = await svc('cron', 'show', cron.id);
    expect(show.stdout).toMatch(/missed\s+run once/);
    const paused = await svc('cron', 'pause', cron.id, '--json');
    expect(JSON.parse(paused.stdout)).toMatchObject({ state: 'paused', next_run_at: null });
    const lsPaused = await svc('cron', 'ls', '--state', 'paused', '--json');
    expect(JSON.parse(lsPaused.stdout).data.map((c: { id: string }) => c.id)).toEqual([cron.id]);
    const resumed = await svc('cron', 'resume', cron.id);
    expect(resumed.stdout).toMatch(/state\s+active/);
    const poked = await svc('cron', 'poke', cron.id, '--json');
    expect(JSON.parse(poked.stdout)).toMatchObject({ next_run_at: cron.next_run_at });
    const run = await svc('cron', 'run', cron.id);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^fired ${cron.id}: created node nd_[0-9A-Z]{26}\\n$`));
    const runJson = JSON.parse((await svc('cron', 'run', cron.id, '--json')).stdout);
    expect(runJson).toMatchObject({ cron: { fire_count: 2 }, node: { task: 'tidy the inbox' } });
    const rm = await svc('cron', 'rm', cron.id);
    expect(rm).toMatchObject({ code: 0, stdout: `deleted ${cron.id}\n` });
    const gone = await svc('cron', 'show', cron.id);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/no cron/);
  });

  it("the daemon's refusal of an expression is one line, exit 1", async () => {
    const res = await svc(
      'cron',
      'create',
      '--schedule',
      '99 * * * *',
      'x',
      '--model',
      'scripted/replay',
    );
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/^svc: .*schedule/);
  });

  it.each([
    [['cron', 'create', 'a task'], /required option '--schedule <expr>'/],
    [['cron', 'create', '--schedule', '* * * * *'], /missing required argument 'task'/],
    [
      ['cron', 'create', '--schedule', '* * * * *', '--missed', 'twice', 'x'],
      /--missed must be skip or run_once/,
    ],
    [
      ['cron', 'create', '--schedule', '* * * * *', '--timezone', 'Nowhere/Land', 'x'],
      /--timezone must be an IANA time zone/,
    ],
    [['cron', 'create', '--schedule', '* * * * *', '--scopes', 'act', 'x'], /use 'svc:act'/],
    [['cron', 'create', '--schedule', '* * * * *', '--name', '', 'x'], /--name/],
    [['cron', 'ls', '--state', 'sleeping'], /--state must be active or paused/],
    [['cron', 'ls', '--limit', '0'], /--limit/],
    [['cron', 'show', 'nd_01ARZ3NDEKTSV4RRFFQ69G5FAV'], /cron id must be cron_/],
    [['cron', 'pause', 'cron_x'], /cron id must be cron_/],
    [['cron', 'resume', 'x'], /cron id must be cron_/],
    [['cron', 'poke', 'x'], /cron id must be cron_/],
    [['cron', 'run', 'x'], /cron id must be cron_/],
    [['cron', 'rm', `${CRON_ID}x`], /cron id must be cron_/],
  ])('svc %j exits 2 before any request', async (args, message) => {
    await idle.expectUsage(args, message);
  });
});
