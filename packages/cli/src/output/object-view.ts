/** How `svc objects` shows custom objects and their deliveries to a person. */
import type { CustomObject, CustomObjectRegistered, ObjectDelivery } from '@svc/client';
import type { Palette } from './color.ts';
import { type Column, renderFields, renderTable } from './table.ts';

function receiverText(o: CustomObject): string {
  const r = o.receiver;
  if (r.kind === 'queue') return 'queue';
  if (r.kind === 'url') return `url ${r.url}`;
  const argv = r.argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : JSON.stringify(a))).join(' ');
  return r.cwd === undefined ? `argv ${argv}` : `argv ${argv} (in ${r.cwd})`;
}

export function renderObject(o: CustomObject, colors: Palette): string {
  return renderFields(
    [
      ['id', o.id],
      ['name', o.name],
      ...(o.description === null ? [] : ([['description', o.description]] as const)),
      ['events', Object.keys(o.events).join(', ')],
      ['receiver', receiverText(o)],
      ['pending', String(o.pending_deliveries)],
      ['app', o.app_id ?? 'the owner'],
      ['created', o.created_at],
    ],
    colors,
  );
}

/** The object, then its secrets with the warning that they are shown this once. */
export function renderRegistered(o: CustomObjectRegistered, colors: Palette): string {
  const secrets: [string, string][] = [['publish token', o.publish_token]];
  if (o.signing_secret !== undefined) secrets.push(['signing secret', o.signing_secret]);
  return [
    renderObject(o, colors),
    renderFields(secrets, colors),
    colors.yellow('shown once: keep them now (the daemon keeps only what it needs to check them)'),
  ].join('\n');
}

const COLUMNS: readonly Column<CustomObject>[] = [
  { header: 'ID', value: (o) => o.id },
  { header: 'RECEIVER', value: (o) => o.receiver.kind },
  { header: 'PENDING', value: (o) => String(o.pending_deliveries) },
  { header: 'EVENTS', value: (o) => Object.keys(o.events).join(',') },
  { header: 'NAME', value: (o) => o.name },
];

export function renderObjectTable(objects: readonly CustomObject[], colors: Palette): string {
  return renderTable(objects, COLUMNS, colors, 'objects');
}

/** One delivery on one line: seq, time, delivery id, event, data. */
export function renderDelivery(d: ObjectDelivery, colors: Palette): string {
  return [
    String(d.seq).padStart(6),
    colors.dim(d.created_at),
    d.payload.delivery_id,
    d.payload.event,
    JSON.stringify(d.payload.data ?? null),
  ].join('  ');
}
