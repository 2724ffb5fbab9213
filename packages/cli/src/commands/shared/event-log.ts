/**
 * `svc events` and `svc canvas watch`: the daemon's event log as `docker events` and `docker logs`
 * show theirs. A follow starts now unless `--since`, `--after` or `--tail` reaches back; without
 * follow, the history is printed (all of it, or from `--since`/`--after`, or its last `--tail`
 * events). `--limit` stops after that many events. Both print one line format with aligned
 * columns (NDJSON under `--json`).
 */
import type { NodeEvent, Svc, SvcEvent } from '@svc/client';
import type { Command } from 'commander';
import type { Context } from '../../context.ts';
import { EXIT, UsageError } from '../../errors.ts';
import type { Palette } from '../../output/color.ts';
import { eventText } from '../../output/node-view.ts';
import { parseDuration } from '../../parse/duration.ts';
import { positive } from '../../parse/number.ts';
import { parseAfter, parseKinds } from './list-options.ts';

export interface EventLogOptions {
  since?: string;
  after?: string;
  tail?: string;
  limit?: string;
  kinds?: string;
  follow: boolean;
}

/** `--since`, `--after`, `--tail`, `--limit`, `--kinds` (the follow flag is each command's). */
export function withEventLogOptions(command: Command): Command {
  return command
    .option(
      '--since <seq|time>',
      'start at this event seq, or at this time: 2026-05-01T09:00:00Z or ago, e.g. 10m, 2h, 1d',
    )
    .option('--after <seq>', 'start after this event seq (resume where a watch stopped)')
    .option('--tail <n>', 'start with the last N events')
    .option('--limit <n>', 'stop after N events')
    .option('--kinds <list>', 'only these kinds, comma-separated, e.g. node.state,human.request');
}

/** Where the history starts: after a seq, or at a time (events older are skipped). */
type Start = { after: number; notBefore?: number };

function parseStart(opts: EventLogOptions, now: number): Start | undefined {
  if (opts.since !== undefined && opts.after !== undefined) {
    throw new UsageError('give --since or --after, not both');
  }
  if (opts.after !== undefined) return { after: parseAfter(opts.after) };
  if (opts.since === undefined) return undefined;
  const since = opts.since.trim();
  if (/^\d{1,15}$/.test(since)) return { after: Math.max(0, Number(since) - 1) };
  const at = /^\d{4}-\d\d-\d\d/.test(since) ? Date.parse(since) : Number.NaN;
  if (!Number.isNaN(at)) return { after: 0, notBefore: at };
  if (/^[\d.]/.test(since) && /[smhdw]$/.test(since)) {
    return { after: 0, notBefore: now - parseDuration(since, '--since') * 1000 };
  }
  throw new UsageError(
    `--since must be an event seq, a time such as 2026-05-01T09:00:00Z, or a duration ago such as 10m; received '${opts.since}'`,
  );
}

/** The widest event kind the daemon writes (`viewer.session.revoked`) and subject (a node id). */
const KIND_WIDTH = 22;
const SUBJECT_WIDTH = 29;

/** One event as a line: SEQ, TIME, KIND, SUBJECT, DETAIL, each column starting where the last did. */
export function eventLine(event: SvcEvent, colors: Palette): string {
  return [
    String(event.seq).padStart(6),
    colors.dim(event.created_at),
    event.kind.padEnd(KIND_WIDTH),
    (event.subject_id ?? '-').padEnd(SUBJECT_WIDTH),
    eventText(event as NodeEvent, colors),
  ].join('  ');
}

/** Prints the log as `opts` ask; answers the exit code. */
export async function printEventLog(ctx: Context, opts: EventLogOptions): Promise<number> {
  const start = parseStart(opts, Date.now());
  const tail = opts.tail === undefined ? undefined : positive(opts.tail, '--tail', true);
  const limit = opts.limit === undefined ? undefined : positive(opts.limit, '--limit', true);
  const kinds = parseKinds(opts.kinds)?.split(',');
  const client = await ctx.client();
  let printed = 0;
  const print = (event: SvcEvent): boolean => {
    ctx.out.record(event, (colors) => eventLine(event, colors));
    printed += 1;
    return limit !== undefined && printed >= limit;
  };

  // "Now" is read before the history, so no event falls between the two streams.
  const head = opts.follow ? (await client.canvas.snapshot({ limit: 1 })).seq : 0;
  let after = start?.after ?? 0;
  if (!opts.follow || start !== undefined || tail !== undefined) {
    const history = await readHistory(client, after, start?.notBefore, kinds, tail, print);
    if (history.stopped) return EXIT.ok;
    after = Math.max(after, history.lastSeq);
  }
  if (!opts.follow) return EXIT.ok;
  const live = client.events.stream(
    { follow: true, ...(kinds !== undefined && { kinds }) },
    { after: Math.max(after, head) },
  );
  for await (const event of live as AsyncIterable<SvcEvent>) {
    if (print(event)) break;
  }
  return EXIT.ok;
}

/**
 * The events committed before the call, after `after`: printed as they come, or only the last
 * `tail` of them (kept in a ring, so memory stays bounded however long the log). `stopped`:
 * `print` reached the limit.
 */
async function readHistory(
  client: Svc,
  after: number,
  notBefore: number | undefined,
  kinds: string[] | undefined,
  tail: number | undefined,
  print: (event: SvcEvent) => boolean,
): Promise<{ lastSeq: number; stopped: boolean }> {
  const backlog = client.events.stream(
    { follow: false, ...(kinds !== undefined && { kinds }) },
    { after },
  );
  const ring: SvcEvent[] = [];
  let lastSeq = after;
  for await (const event of backlog as AsyncIterable<SvcEvent>) {
    lastSeq = event.seq;
    if (notBefore !== undefined && Date.parse(event.created_at) < notBefore) continue;
    if (tail === undefined) {
      if (print(event)) return { lastSeq, stopped: true };
      continue;
    }
    ring.push(event);
    if (ring.length > tail) ring.shift();
  }
  for (const event of ring) if (print(event)) return { lastSeq, stopped: true };
  return { lastSeq, stopped: false };
}
