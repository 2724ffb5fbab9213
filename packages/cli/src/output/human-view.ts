/** How `svc human` shows requests, tickets and answers to a person. */
import type { HumanRequest, HumanResponse, Ticket } from '@svc/client';
import type { Palette } from './color.ts';
import { type Column, renderFields, renderTable } from './table.ts';

const PREVIEW = 100;

function preview(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > PREVIEW ? `${line.slice(0, PREVIEW - 1)}…` : line;
}

function stateText(state: string, colors: Palette): string {
  if (state === 'answered') return colors.green(state);
  if (state === 'open' || state === 'in_progress') return colors.yellow(state);
  return colors.dim(state);
}

function asker(who: { node_id: string | null; app_id: string | null }): string {
  if (who.node_id !== null)
    return who.app_id === null ? who.node_id : `${who.node_id} (${who.app_id})`;
  return who.app_id ?? 'the owner';
}

/** The answer in one line: the choice, the text, then the data as JSON. */
export function responseLine(r: HumanResponse): string {
  const parts = [
    ...(r.choice === null ? [] : [r.choice]),
    ...(r.text === null ? [] : [preview(r.text)]),
    ...(r.data === null ? [] : [JSON.stringify(r.data)]),
  ];
  return parts.join(' — ');
}

function contentFields(c: HumanRequest | Ticket): [string, string][] {
  return [
    ['kind', c.kind],
    ['title', c.title],
    ['options', c.options.length === 0 ? '-' : c.options.join(', ')],
    ['schema', c.response_schema === null ? '-' : JSON.stringify(c.response_schema)],
    ['body', c.body === '' ? '-' : preview(c.body)],
  ];
}

export function renderHumanRequest(r: HumanRequest, colors: Palette): string {
  return renderFields(
    [
      ['id', r.id],
      ['ticket', r.ticket_id],
      ['state', stateText(r.state, colors)],
      ...contentFields(r),
      ['asker', asker(r)],
      ['response', r.response === null ? '-' : responseLine(r.response)],
      ['expires', r.expires_at ?? '-'],
      ['created', r.created_at],
    ],
    colors,
  );
}

export function renderTicket(t: Ticket, colors: Palette): string {
  return renderFields(
    [
      ['id', t.id],
      ['request', t.request_id],
      ['state', stateText(t.state, colors)],
      ...contentFields(t),
      ['note', t.progress_note ?? '-'],
      ['asker', asker(t.asker)],
      ['created', t.created_at],
    ],
    colors,
  );
}

const COLUMNS: readonly Column<Ticket>[] = [
  { header: 'TICKET', value: (t) => t.id },
  {
    header: 'STATE',
    value: (t) => t.state,
    style: (padded, raw, colors) => (raw === 'in_progress' ? colors.yellow(padded) : padded),
  },
  { header: 'KIND', value: (t) => t.kind },
  { header: 'ASKER', value: (t) => asker(t.asker) },
  { header: 'TITLE', value: (t) => t.title },
];

export function renderTicketTable(tickets: readonly Ticket[], colors: Palette): string {
  return renderTable(tickets, COLUMNS, colors);
}
