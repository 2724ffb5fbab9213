/** How `svc node` and `svc run` show nodes, runs and their events to a person. */
import type { Node, NodeEvent, NodeOutcome, Run, Turn } from '@svc/client';
import type { Palette } from './color.ts';
import { cell } from './format.ts';
import { colored, renderFields } from './table.ts';

const PREVIEW = 100;

function preview(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > PREVIEW ? `${line.slice(0, PREVIEW - 1)}…` : line;
}

export function stateText(state: string, colors: Palette): string {
  if (state === 'done') return colors.green(state);
  if (state === 'failed' || state === 'cancelled') return colors.red(state);
  if (state === 'waiting') return colors.yellow(state);
  return state;
}

/** `stateText` as a table column's `style`, so the colour codes never count toward its width. */
export const stateStyle = colored(stateText);

function limits(b: Node['budgets']): string {
  const v = (n: number | null) => (n === null ? 'none' : String(n));
  return `turns ${v(b.max_turns)}, tokens ${v(b.max_tokens)}, usd ${v(b.max_cost_usd)}`;
}

function usage(u: Node['usage']): string {
  return `${u.turns} turns, ${u.input_tokens}+${u.output_tokens} tokens, $${u.cost_usd.toFixed(4)}`;
}

function outcome(o: Node['outcome']): string {
  if (o === null) return '-';
  if (o.error !== null) return `${o.state}: ${o.error.message}`;
  return `${o.state}${o.summary === null ? '' : `: ${o.summary}`}${o.result === null ? '' : ` ${JSON.stringify(o.result)}`}`;
}

/** A node's or a run's state (a run's is its root's) with its reason. */
function stateLine(s: Pick<Node, 'state' | 'state_reason'>, colors: Palette): string {
  return `${stateText(s.state, colors)}${s.state_reason === null ? '' : ` (${s.state_reason})`}`;
}

function modelName(model: Node['model']): string {
  return `${model.provider}/${model.model}`;
}

export function renderNode(n: Node, colors: Palette): string {
  return renderFields(
    [
      ['id', n.id],
      ['title', n.title],
      ['state', stateLine(n, colors)],
      ['parent', n.parent_id ?? '-'],
      ['root', n.root_id],
      ['run', n.run_id ?? '-'],
      ['profile', n.profile],
      ['model', modelName(n.model)],
      ['scopes', n.scopes === null ? 'everything (owner)' : cell(n.scopes)],
      ['budgets', limits(n.budgets)],
      ['usage', usage(n.usage)],
      ['outcome', outcome(n.outcome)],
      ['created', n.created_at],
    ],
    colors,
  );
}

/** `svc node outcome`: each part of a final node's outcome on a line of its own. */
export function renderOutcome(o: NodeOutcome, colors: Palette): string {
  return renderFields(
    [
      ['state', stateText(o.state, colors)],
      ['summary', o.summary ?? '-'],
      ['error', o.error === null ? '-' : `${o.error.code}: ${o.error.message}`],
      ['result', o.result === null || o.result === undefined ? '-' : JSON.stringify(o.result)],
      ['finished', o.finished_at],
    ],
    colors,
  );
}

export function renderRun(r: Run, colors: Palette): string {
  return renderFields(
    [
      ['id', r.id],
      ['title', r.title],
      ['state', stateLine(r, colors)],
      ['root node', r.node_id],
      ['app', r.app_id ?? 'the owner'],
      ['model', modelName(r.model)],
      ['usage', usage(r.usage)],
      ['outcome', outcome(r.outcome)],
      ['created', r.created_at],
    ],
    colors,
  );
}

/** One line per event: state changes, turns, tool calls, mail, reports, faults, outcomes. */
export function renderEvent(event: NodeEvent, colors: Palette): string {
  return `${colors.dim(String(event.subject_id ?? '-'))} ${eventText(event, colors)}`;
}

/** What an event says, without its subject: the DETAIL column of `svc node|run events`. */
export function eventText(event: NodeEvent, colors: Palette): string {
  // biome-ignore lint/suspicious/noExplicitAny: payload shapes are per kind (docs/nodes.md "Events"); unknown kinds fall through
  const p = event.payload as Record<string, any>;
  switch (event.kind) {
    case 'node.state':
    case 'run.state':
      return `${p.from ?? 'new'} → ${stateText(String(p.to), colors)}${p.action ? ` (${p.action})` : ''}${p.reason ? `: ${p.reason}` : ''}${Array.isArray(p.tools) ? `; tools: ${p.tools.length === 0 ? 'none' : p.tools.join(', ')}` : ''}`;
    case 'node.turn': {
      // A call refused as the model made it (a tool not offered, input that is not JSON) is
      // settled in the turn itself, and no `node.tool` event follows: its error shows here.
      const calls = (p.turn.tool_calls as Turn['tool_calls']).map((c) =>
        c.status === 'error'
          ? `${c.name} ${colors.red('error')}: ${preview(JSON.stringify(c.output) ?? '')}`
          : c.name,
      );
      const text = p.turn.text === '' ? '' : ` ${preview(p.turn.text)}`;
      return `turn ${p.turn.index}:${text}${calls.length > 0 ? ` → ${calls.join(', ')}` : ''}`;
    }
    case 'node.tool':
      return `tool ${p.tool_call.name} ${p.tool_call.status === 'ok' ? colors.green('ok') : colors.red(p.tool_call.status)}: ${preview(JSON.stringify(p.tool_call.output) ?? '')}`;
    case 'node.mail':
      return `mail #${p.mail.seq} from ${p.mail.from.kind}: ${preview(p.mail.text)}`;
    case 'node.report':
      return `report: ${preview(p.report.text)}`;
    case 'node.job':
      return `job ${p.job.id} ${p.job.state}: ${preview(p.job.title)}`;
    case 'node.fault':
      return `${colors.red('fault')} ${p.fault.code}${p.fault.fatal ? ' (fatal)' : ''}: ${preview(p.fault.message)}`;
    case 'node.outcome':
    case 'run.outcome':
      return `outcome ${outcome(p.outcome)}`;
    default:
      return `${event.kind} ${preview(JSON.stringify(event.payload))}`;
  }
}
