/** `svc node ls` and `svc run ls`: one row a node or run, with one column of its own. */
import type { Context } from '../../context.ts';
import { EXIT } from '../../errors.ts';
import { stateStyle } from '../../output/node-view.ts';
import { type Column, renderTable } from '../../output/table.ts';

interface Subject {
  id: string;
  state: string;
  title: string;
  usage: { turns: number };
}

/** Prints the page as ID, STATE, `own`, TURNS, TITLE (the raw page under `--json`). */
export function printSubjects<T extends Subject>(
  ctx: Context,
  page: { data: T[] },
  own: Column<T>,
  noun = 'nodes',
): number {
  ctx.out.result(page, (colors) =>
    renderTable(
      page.data,
      [
        { header: 'ID', value: (s) => s.id },
        { header: 'STATE', value: (s) => s.state, style: stateStyle },
        own,
        { header: 'TURNS', value: (s) => String(s.usage.turns) },
        { header: 'TITLE', value: (s) => s.title },
      ],
      colors,
      noun,
    ),
  );
  return EXIT.ok;
}
