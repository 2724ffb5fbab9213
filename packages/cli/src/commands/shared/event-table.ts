/** `svc node events` and `svc run events`: one page of events as a table. */
import type { NodeEventList, Svc } from '@svc/client';
import type { Command } from 'commander';
import type { Context } from '../../context.ts';
import { EXIT } from '../../errors.ts';
import { eventText } from '../../output/node-view.ts';
import { whenCell } from '../../output/relative-time.ts';
import { renderTable } from '../../output/table.ts';
import { parseAfter, parseKinds, parseLimit } from './list-options.ts';

/** A page of events (or of reports) holds this many unless `--limit` says otherwise. */
export const DEFAULT_PAGE_LIMIT = 50;

/** The flags of a page of events: `--after`, `--limit`, `--kinds` (`kindsExample` in its help). */
export function withEventPageOptions(command: Command, kindsExample: string): Command {
  return command
    .option('--after <seq>', 'start after this event seq', '0')
    .option('--limit <n>', 'at most this many', String(DEFAULT_PAGE_LIMIT))
    .option('--kinds <list>', `only these kinds, comma-separated, e.g. ${kindsExample}`);
}

export interface EventsOptions {
  after: string;
  limit: string;
  kinds?: string;
  subtree?: boolean;
}

export interface EventsQuery {
  after: number;
  limit: number;
  kinds?: string;
  subtree?: true;
}

/**
 * The page `list` fetches for the checked flags, printed by `printEvents`; the next page's
 * command is `command` with every filter of this one.
 */
export async function listEvents(
  ctx: Context,
  command: string,
  opts: EventsOptions,
  list: (client: Svc, query: EventsQuery) => Promise<NodeEventList>,
): Promise<number> {
  const after = parseAfter(opts.after);
  const limit = parseLimit(opts.limit);
  const kinds = parseKinds(opts.kinds);
  const client = await ctx.client();
  const page = await list(client, {
    after,
    limit,
    ...(kinds !== undefined && { kinds }),
    ...(opts.subtree === true && { subtree: true }),
  });
  const again = [
    ...(limit === DEFAULT_PAGE_LIMIT ? [] : [`--limit ${limit}`]),
    ...(kinds === undefined ? [] : [`--kinds ${kinds}`]),
    ...(opts.subtree === true ? ['--subtree'] : []),
  ];
  return printEvents(ctx, page, (cursor) => [command, ...again, '--after', cursor].join(' '));
}

/**
 * Prints the page as SEQ, TIME, KIND, SUBJECT, DETAIL (the raw page under `--json`); when the
 * daemon holds more, a note on stderr gives the command for the next page (`next(cursor)`).
 */
export function printEvents(
  ctx: Context,
  page: NodeEventList,
  next: (cursor: string) => string,
): number {
  ctx.out.result(page, (colors) =>
    page.data.length === 0
      ? 'no events'
      : renderTable(
          page.data,
          [
            { header: 'SEQ', value: (e) => String(e.seq) },
            { header: 'TIME', value: (e) => whenCell(e.created_at) },
            { header: 'KIND', value: (e) => e.kind },
            { header: 'SUBJECT', value: (e) => e.subject_id ?? '-' },
            { header: 'DETAIL', value: (e) => eventText(e, colors) },
          ],
          colors,
        ),
  );
  if (!ctx.out.json && page.has_more && page.next_cursor !== null) {
    ctx.out.note(`more events: ${next(page.next_cursor)}`);
  }
  return EXIT.ok;
}
