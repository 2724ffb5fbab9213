/**
 * `svc events` and `svc canvas watch` against a real daemon, in-process: a follow starts now
 * (never replaying the log from seq 1), `--since` takes a seq, a time or a duration ago,
 * `--tail` starts with the last events, `--limit` stops, and both print one aligned format.
 */
import { createLocalClient } from '@svc/client/node';
import { beforeAll, describe, expect, it } from 'vitest';
import { useIdleDaemon } from './idle-daemon.ts';

const idle = useIdleDaemon('svc-cli-ev-');
const { svc } = idle;

type Event = { seq: number; kind: string; subject_id: string | null; created_at: string };
const lines = (stdout: string): Event[] =>
  stdout
    .trim()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Event);

let history: Event[] = [];
let touches = 0;
/** One new `profile.updated` event, answered once it is committed. */
async function touch(): Promise<void> {
  touches += 1;
  await createLocalClient({ home: idle.home() }).profiles.ensure('touched', {
    description: `touch ${touches}`,
  });
}

beforeAll(async () => {
  for (let i = 0; i < 3; i++) await touch();
  history = lines((await svc('events', '--json')).stdout);
  expect(history.length).toBeGreaterThan(4);
});

/**
 * Runs a following command and makes events until it has printed `limit` of them (each one waits
 * for the daemon's answer; at most 200), so the test never depends on when the stream connected.
 */
async function followUntilDone(args: string[]): Promise<Event[]> {
  let done = false;
  const run = svc(...args, '--json').finally(() => {
    done = true;
  });
  for (let i = 0; i < 200 && !done; i++) await touch();
  const res = await run;
  expect(res.code, res.stderr).toBe(0);
  return lines(res.stdout);
}

describe('svc events', () => {
  it('without -f prints the whole history; --limit stops; --tail keeps the last ones', async () => {
    expect(history[0]!.seq).toBe(1);
    const limited = lines((await svc('events', '--limit', '2', '--json')).stdout);
    expect(limited.map((e) => e.seq)).toEqual([1, 2]);
    const all = lines((await svc('events', '--json')).stdout);
    const tail = lines((await svc('events', '--tail', '2', '--json')).stdout);
    expect(tail).toEqual(all.slice(-2));
  });

  it('--since takes a seq (inclusive), a time, or a duration ago', async () => {
    const fromThree = lines((await svc('events', '--since', '3', '--json')).stdout);
    expect(fromThree[0]!.seq).toBe(3);
    const hourAgo = lines((await svc('events', '--since', '1h', '--json')).stdout);
    expect(hourAgo[0]!.seq).toBe(1);
    const future = await svc('events', '--since', '2999-01-01T00:00:00Z', '--json');
    expect(future).toMatchObject({ code: 0, stdout: '' });
    const at = history[2]!.created_at;
    const fromTime = lines((await svc('events', '--since', at, '--json')).stdout);
    expect(fromTime.every((e) => e.created_at >= at)).toBe(true);
    expect(fromTime.map((e) => e.seq)).toContain(history[2]!.seq);
  });

  it('-f starts now: the first event printed is a new one, never seq 1', async () => {
    const before = lines((await svc('events', '--tail', '1', '--json')).stdout)[0]!.seq;
    const [first] = await followUntilDone(['events', '-f', '--limit', '1']);
    expect(first!.seq).toBeGreaterThan(before);
    expect(first!.kind).toBe('profile.updated');
  });

  it('-f --tail N prints the last N, then follows', async () => {
    const last = lines((await svc('events', '--tail', '2', '--json')).stdout);
    const printed = await followUntilDone(['events', '-f', '--tail', '2', '--limit', '3']);
    // Events are made while it reads, so its last two may be newer than these; never older.
    expect(printed).toHaveLength(3);
    expect(printed[0]!.seq).toBeGreaterThanOrEqual(last[0]!.seq);
    expect(printed[1]!.seq).toBe(printed[0]!.seq + 1);
    expect(printed[2]!.seq).toBeGreaterThan(printed[1]!.seq);
  });

  it('--jq picks what is printed, one line an event', async () => {
    const seqs = await svc('events', '--limit', '2', '--jq', '.seq');
    expect(seqs).toMatchObject({ code: 0, stdout: '1\n2\n' });
    const picked = await svc('events', '--limit', '1', '--jq', '{seq, kind}');
    expect(JSON.parse(picked.stdout)).toEqual({ seq: 1, kind: history[0]!.kind });
    await idle.expectUsage(['events', '--jq', 'seq'], /--jq: a filter starts with \./);
  });

  it('refuses bad starts before sending anything (exit 2)', async () => {
    await idle.expectUsage(['events', '--since', 'yesterday'], /--since must be an event seq/);
    await idle.expectUsage(['events', '--since', '1', '--after', '2'], /--since or --after/);
    await idle.expectUsage(['events', '--tail', '0'], /--tail must be a positive/);
    await idle.expectUsage(['events', '--limit', 'x'], /--limit must be a positive/);
  });
});

describe('svc canvas watch', () => {
  it('follows from now by default, in the format svc events prints', async () => {
    const before = lines((await svc('events', '--tail', '1', '--json')).stdout)[0]!.seq;
    const [first] = await followUntilDone([
      'canvas',
      'watch',
      '--kinds',
      'profile.updated',
      '--limit',
      '1',
    ]);
    expect(first!.seq).toBeGreaterThan(before);
    const watched = await svc('canvas', 'watch', '--no-follow', '--tail', '3');
    const events = await svc('events', '--tail', '3');
    expect(watched.stdout).toBe(events.stdout);
    // Columns aligned: each line's KIND, SUBJECT and DETAIL start where the first line's do.
    const rows = events.stdout.trimEnd().split('\n');
    expect(rows).toHaveLength(3);
    const starts = (row: string) =>
      [...row.matchAll(/ {2}(?=\S)/g)].slice(0, 4).map((m) => m.index);
    for (const row of rows) expect(starts(row)).toEqual(starts(rows[0]!));
  });
});
