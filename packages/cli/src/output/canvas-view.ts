/** How `svc canvas` shows attention, the canvas, the roster, the dashboard and the history. */
import type {
  AttentionCounts,
  AttentionItem,
  CanvasNode,
  Dashboard,
  HistoryStats,
  RosterEntry,
  TranscriptTurn,
} from '@svc/client';
import type { Palette } from './color.ts';
import { stateStyle, stateText } from './node-view.ts';
import { colored, renderFields, renderTable } from './table.ts';
import { renderStatus } from './views.ts';

const money = (usd: number) => `$${usd.toFixed(4)}`;

export function renderAttention(items: readonly AttentionItem[], colors: Palette): string {
  if (items.length === 0) return 'nothing needs you';
  return renderTable(
    items,
    [
      { header: 'SINCE', value: (i) => i.since },
      {
        header: 'KIND',
        value: (i) => i.kind,
        style: colored((raw, c) => (raw === 'ticket' ? c.yellow(raw) : c.red(raw))),
      },
      { header: 'SUBJECT', value: (i) => i.ticket_id ?? i.node_id ?? i.cron_id ?? '-' },
      { header: 'TITLE', value: (i) => i.title },
      { header: 'REASON', value: (i) => i.reason },
    ],
    colors,
  );
}

export function renderCounts(counts: AttentionCounts, colors: Palette): string {
  return renderFields(
    [
      ['total', String(counts.total)],
      ...Object.entries(counts.by_kind).map(([kind, n]) => [kind, String(n)] as const),
    ],
    colors,
  );
}

/**
 * The nodes as trees, newest tree first: each child under its parent, indented, oldest first (the
 * order its work came in); parents left out start a tree.
 */
export function renderCanvasTree(nodes: readonly CanvasNode[], colors: Palette): string {
  if (nodes.length === 0) return 'no nodes';
  const ids = new Set(nodes.map((n) => n.id));
  const children = new Map<string, CanvasNode[]>();
  for (const node of [...nodes].sort((a, b) => (a.id < b.id ? -1 : 1))) {
    const parent = node.parent_id !== null && ids.has(node.parent_id) ? node.parent_id : '';
    children.set(parent, [...(children.get(parent) ?? []), node]);
  }
  const rows: { node: CanvasNode; depth: number }[] = [];
  const visit = (parent: string, depth: number) => {
    const under = children.get(parent) ?? [];
    for (const node of parent === '' ? [...under].reverse() : under) {
      rows.push({ node, depth });
      visit(node.id, depth + 1);
    }
  };
  visit('', 0);
  return renderTable(
    rows,
    [
      { header: 'STATE', value: (r) => r.node.state, style: stateStyle },
      { header: 'ID', value: (r) => r.node.id },
      { header: 'TURNS', value: (r) => String(r.node.usage.turns) },
      { header: 'TITLE', value: (r) => `${'  '.repeat(r.depth)}${r.node.title}` },
    ],
    colors,
  );
}

function wait(entry: RosterEntry): string {
  const w = entry.waiting_on;
  if (w === null) return '-';
  if (w.for === 'human') return `human ${w.request_id}`;
  if (w.for === 'timer') return `until ${w.until}`;
  if (w.for === 'budget') return `budget ${w.budget}`;
  if (w.for === 'children') return `${w.mode} of ${w.node_ids.length} children`;
  return w.for;
}

export function renderRoster(entries: readonly RosterEntry[], colors: Palette): string {
  if (entries.length === 0) return 'no live agents';
  return renderTable(
    entries,
    [
      { header: 'NODE', value: (e) => e.node_id },
      { header: 'STATE', value: (e) => e.state, style: stateStyle },
      { header: 'BROKER', value: (e) => (e.broker === null ? '-' : `pid ${e.broker.pid ?? '?'}`) },
      { header: 'TURNS', value: (e) => String(e.usage.turns) },
      {
        header: 'TOKENS',
        value: (e) => `${e.usage.input_tokens}+${e.usage.output_tokens}`,
      },
      { header: 'COST', value: (e) => money(e.usage.cost_usd) },
      { header: 'WAIT', value: wait },
      { header: 'TITLE', value: (e) => e.title },
    ],
    colors,
  );
}

export function renderDashboard(board: Dashboard, colors: Palette): string {
  const counts = Object.entries(board.counts.by_state)
    .filter(([, n]) => n > 0)
    .map(([state, n]) => `${n} ${stateText(state, colors)}`)
    .join(', ');
  const nodes =
    board.nodes.data.length === 0
      ? 'no nodes'
      : renderTable(
          board.nodes.data,
          [
            { header: 'ID', value: (n) => n.id },
            { header: 'STATE', value: (n) => n.state, style: stateStyle },
            { header: 'TURNS', value: (n) => String(n.usage.turns) },
            { header: 'TITLE', value: (n) => n.title },
          ],
          colors,
        );
  const more = board.nodes.has_more ? ' (more exist)' : '';
  return [
    renderStatus(board.status, colors),
    '',
    `${colors.bold('nodes')}  ${board.counts.total}${more}${counts === '' ? '' : `: ${counts}`}`,
    nodes,
  ].join('\n');
}

export function renderTranscript(turns: readonly TranscriptTurn[], colors: Palette): string {
  if (turns.length === 0) return 'no turns';
  return turns
    .map((turn) => {
      const cost = turn.cost_usd === null ? '' : `, ${money(turn.cost_usd)}`;
      const head = colors.bold(
        `── turn ${turn.index} (${turn.model}, ${turn.usage.input_tokens}+${turn.usage.output_tokens} tokens${cost}) ${turn.started_at}`,
      );
      const lines = turn.entries.map(
        (e) => `${colors.dim(`${e.role}:`)} ${e.text}${e.truncated ? colors.dim(' [cut]') : ''}`,
      );
      return [head, ...lines].join('\n');
    })
    .join('\n\n');
}

export function renderStats(stats: HistoryStats, colors: Palette): string {
  const rows = [...stats.groups, { key: 'total', ...stats.totals }];
  const table = renderTable(
    rows,
    [
      { header: stats.group_by.toUpperCase(), value: (g) => g.key },
      { header: 'NODES', value: (g) => String(g.nodes) },
      { header: 'TURNS', value: (g) => String(g.turns) },
      { header: 'IN', value: (g) => String(g.input_tokens) },
      { header: 'OUT', value: (g) => String(g.output_tokens) },
      { header: 'COST', value: (g) => money(g.cost_usd) },
    ],
    colors,
  );
  const states = Object.entries(stats.nodes_by_state)
    .map(([state, n]) => `${n} ${state}`)
    .join(', ');
  const since = stats.since === null ? 'all time' : `since ${stats.since}`;
  return `${table}\n\n${colors.dim(`nodes (${since}):`)} ${states}`;
}
