/** `svc node events` and `svc run events`: one page of events as a table. */
import type { NodeEventList } from '@svc/client';
import type { Context } from '../../context.ts';
import { EXIT } from '../../errors.ts';
import { eventText } from '../../output/node-view.ts';
import { renderTable } from '../../output/table.ts';

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
            { header: 'TIME', value: (e) => e.created_at },
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
