/** How `svc cron` shows crons to a person. */
import type { Cron } from '@svc/client';
import type { Palette } from './color.ts';
import { whenCell } from './relative-time.ts';
import { type Column, renderFields, renderTable } from './table.ts';

const TASK_PREVIEW = 100;

function stateText(state: Cron['state'], colors: Palette): string {
  return state === 'paused' ? colors.yellow(state) : colors.green(state);
}

function schedule(c: Cron): string {
  return c.timezone === 'UTC' ? c.schedule : `${c.schedule} (${c.timezone})`;
}

function preview(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > TASK_PREVIEW ? `${line.slice(0, TASK_PREVIEW - 1)}…` : line;
}

export function renderCron(c: Cron, colors: Palette): string {
  return renderFields(
    [
      ['id', c.id],
      ['name', c.name],
      ['state', stateText(c.state, colors)],
      ['schedule', schedule(c)],
      ['missed', c.missed === 'skip' ? 'skip' : 'run once'],
      ['overlap', c.overlap === 'skip' ? 'skip while the last node works' : 'allow'],
      ['next run', c.next_run_at ?? '-'],
      ['last run', c.last_run_at ?? '-'],
      ['last node', c.last_node_id ?? '-'],
      ['fires', String(c.fire_count)],
      ['app', c.app_id ?? 'the owner'],
      ['task', preview(c.task.task)],
      ['created', c.created_at],
    ],
    colors,
  );
}

const COLUMNS: readonly Column<Cron>[] = [
  { header: 'ID', value: (c) => c.id },
  {
    header: 'STATE',
    value: (c) => c.state,
    style: (padded, raw, colors) => (raw === 'paused' ? colors.yellow(padded) : padded),
  },
  { header: 'SCHEDULE', value: schedule },
  { header: 'NEXT RUN', value: (c) => whenCell(c.next_run_at) },
  { header: 'FIRES', value: (c) => String(c.fire_count) },
  { header: 'NAME', value: (c) => c.name },
];

export function renderCronTable(crons: readonly Cron[], colors: Palette): string {
  return renderTable(crons, COLUMNS, colors, 'crons');
}
