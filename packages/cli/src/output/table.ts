import type { Palette } from './color.ts';

export interface Column<Row> {
  header: string;
  value: (row: Row) => string;
  /** Colours a cell after padding, so ANSI codes never disturb the alignment. */
  style?: (padded: string, raw: string, colors: Palette) => string;
}

/** A `style` that colours the cell's text with `color`, its padding left plain. */
export const colored =
  (color: (text: string, colors: Palette) => string) =>
  (padded: string, raw: string, colors: Palette): string =>
    padded.replace(raw, color(raw, colors));

const GAP = '  ';

/**
 * Rows under a header, columns padded to their widest cell; the last column is not padded. No
 * rows: `no <noun>` when a noun is given (the one wording of every empty list), else the header.
 */
export function renderTable<Row>(
  rows: readonly Row[],
  columns: readonly Column<Row>[],
  colors: Palette,
  noun?: string,
): string {
  if (rows.length === 0 && noun !== undefined) return emptyList(noun);
  const cells = rows.map((row) => columns.map((column) => oneLine(column.value(row))));
  const widths = columns.map((column, i) =>
    Math.max(column.header.length, ...cells.map((row) => row[i]?.length ?? 0)),
  );
  const last = columns.length - 1;
  const pad = (text: string, i: number) => (i === last ? text : text.padEnd(widths[i] ?? 0));
  const header = columns.map((column, i) => colors.bold(pad(column.header, i))).join(GAP);
  const body = cells.map((row) =>
    row
      .map((text, i) => {
        const padded = pad(text, i);
        const style = columns[i]?.style;
        return style ? style(padded, text, colors) : padded;
      })
      .join(GAP),
  );
  return [header, ...body].map((line) => line.trimEnd()).join('\n');
}

/** `label  value` pairs, labels aligned: the human form of a single object. */
export function renderFields(
  fields: readonly (readonly [string, string])[],
  colors: Palette,
): string {
  const width = Math.max(0, ...fields.map(([label]) => label.length));
  return fields
    .map(([label, value]) => `${colors.dim(label.padEnd(width))}${GAP}${oneLine(value)}`.trimEnd())
    .join('\n');
}

/** A cell must stay on one line or the table falls apart. */
function oneLine(text: string): string {
  return text.replace(/\r?\n|\r/g, ' ');
}

/** What an empty list prints, the same for every list: `no nodes`, `no events`, … */
export function emptyList(noun: string): string {
  return `no ${noun}`;
}
