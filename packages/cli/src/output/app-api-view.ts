/** How `svc upload`, `svc share` and `svc question` show their resources to a person. */
import type { Question, Share, Upload } from '@svc/client';
import type { Palette } from './color.ts';
import { responseLine } from './human-view.ts';
import { whenCell } from './relative-time.ts';
import { type Column, renderFields, renderTable } from './table.ts';

const PREVIEW = 100;

function preview(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > PREVIEW ? `${line.slice(0, PREVIEW - 1)}…` : line;
}

export function renderUpload(u: Upload, colors: Palette): string {
  return renderFields(
    [
      ['id', u.id],
      ['filename', u.filename],
      ['type', u.media_type],
      ['size', `${u.size} bytes`],
      ['sha256', u.sha256],
      ['app', u.app_id ?? 'the owner'],
      ['created', u.created_at],
    ],
    colors,
  );
}

export function renderShare(s: Share, colors: Palette): string {
  return renderFields(
    [
      ['id', s.id],
      ['app', s.app_id],
      ['path', s.path],
      ['mode', s.mode],
      ['grants', s.scope],
      ['made by', s.created_by ?? 'the owner'],
      ['expires', s.expires_at ?? 'never'],
      ['created', s.created_at],
    ],
    colors,
  );
}

const SHARE_COLUMNS: readonly Column<Share>[] = [
  { header: 'ID', value: (s) => s.id },
  { header: 'APP', value: (s) => s.app_id },
  { header: 'MODE', value: (s) => s.mode },
  { header: 'EXPIRES', value: (s) => whenCell(s.expires_at, 'never') },
  { header: 'BY', value: (s) => s.created_by ?? 'owner' },
  { header: 'PATH', value: (s) => s.path },
];

export function renderShareTable(shares: readonly Share[], colors: Palette): string {
  return shares.length === 0 ? 'no shares' : renderTable(shares, SHARE_COLUMNS, colors);
}

function stateText(state: string, colors: Palette): string {
  if (state === 'answered') return colors.green(state);
  if (state === 'open' || state === 'in_progress') return colors.yellow(state);
  return colors.dim(state);
}

export function renderQuestion(q: Question, colors: Palette): string {
  return renderFields(
    [
      ['id', q.id],
      ['state', stateText(q.state, colors)],
      ['run', q.run_id],
      ['node', q.node_id],
      ['request', q.request_id],
      ['kind', q.kind],
      ['title', q.title],
      ['options', q.options.length === 0 ? '-' : q.options.join(', ')],
      ['schema', q.response_schema === null ? '-' : JSON.stringify(q.response_schema)],
      ['body', q.body === '' ? '-' : preview(q.body)],
      ['answer', q.answer === null ? '-' : responseLine(q.answer)],
      ['expires', q.expires_at ?? '-'],
      ['created', q.created_at],
    ],
    colors,
  );
}
