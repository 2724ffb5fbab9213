/** How `svc memory` shows documents to a person. */
import type { MemoryDocumentSummary } from '@svc/client';
import type { Palette } from './color.ts';
import { whenCell } from './relative-time.ts';
import { type Column, renderTable } from './table.ts';

const COLUMNS: readonly Column<MemoryDocumentSummary>[] = [
  { header: 'PATH', value: (d) => d.path },
  { header: 'KIND', value: (d) => d.kind },
  {
    header: 'PRIVACY',
    value: (d) => d.privacy,
    style: (padded, raw, colors) => (raw === 'public' ? padded : colors.yellow(padded)),
  },
  { header: 'SIZE', value: (d) => String(d.size) },
  { header: 'VERSION', value: (d) => String(d.version) },
  { header: 'UPDATED', value: (d) => whenCell(d.updated_at) },
  { header: 'TITLE', value: (d) => d.title },
];

export function renderMemoryTable(docs: readonly MemoryDocumentSummary[], colors: Palette): string {
  return renderTable(docs, COLUMNS, colors, 'documents');
}

/** `user:prefs/food.md`: where a document lives, in one word. */
export function documentName(d: { space: string; path: string }): string {
  return `${d.space}:${d.path}`;
}
