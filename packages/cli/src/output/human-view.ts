/** How `svc human` shows requests, tickets and answers to a person. */
import type { HumanRequest, Ticket } from '@svc/client';
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

function asker(nodeId: string | null, appId: string | null): string {
  if (nodeId !== null) return appId === null ? nodeId : `${nodeId} (${appId})`;
  return appId ?? 'the owner';
}

/** The answer in one line: the choice, the text, then the data as JSON (what is absent skipped). */
export function responseLine(r: {
  choice?: string | null | undefined;
  text?: string | null | undefined;
  data?: unknown;
}): string {
  const parts = [
    ...(r.choice == null ? [] : [r.choice]),
    ...(r.text == null ? [] : [preview(r.text)]),
    ...(r.data == null ? [] : [JSON.stringify(r.data)]),
  ];
  return parts.join(' — ');
}

function contentFields(
  c: Pick<HumanRequest, 'kind' | 'title' | 'options' | 'body'>,
  schema: Record<string, unknown> | null,
): [string, string][] {
  return [
    ['kind', c.kind],
    ['title', c.title],
    ['options', c.options.length === 0 ? '-' : c.options.join(', ')],
    ['schema', schema === null ? '-' : JSON.stringify(schema)],
    ['body', c.body === '' ? '-' : preview(c.body)],
  ];
}

export function renderHumanRequest(r: HumanRequest, colors: Palette): string {
  return renderFields(
    [
      ['id', r.id],
      ['ticket', r.ticket_id],
      ['state', stateText(r.state, colors)],
      ...contentFields(r, r.response_schema),
      ['asker', asker(r.node_id, r.app_id)],
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
      ['request', t.requestId],
      ['state', stateText(t.state, colors)],
      ...contentFields(t, t.responseSchema),
      ['note', t.progressNote ?? '-'],
      ['asker', asker(t.asker.nodeId, t.asker.appId)],
      ['created', t.createdAt],
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
  { header: 'ASKER', value: (t) => asker(t.asker.nodeId, t.asker.appId) },
  { header: 'TITLE', value: (t) => t.title },
];

export function renderTicketTable(tickets: readonly Ticket[], colors: Palette): string {
  return renderTable(tickets, COLUMNS, colors, 'tickets');
}
