import { tokens, usd } from '../format.ts';
import { Json, Time } from '../parts.tsx';
import type { SvcEvent } from '../types.ts';

/** An event as one readable line, its raw JSON one click away. */
export function EventLine({ event: e }: { event: SvcEvent }) {
  return (
    <li class={`event event-${e.kind.replace('.', '-')}`} data-seq={e.seq}>
      <span class="muted event-at">
        <Time at={e.created_at} />
      </span>{' '}
      <span class="event-kind">{e.kind}</span> <span class="event-text">{describe(e)}</span>
      <details>
        <summary>raw</summary>
        <Json value={e} />
      </details>
    </li>
  );
}

const str = (v: unknown) =>
  typeof v === 'string' ? v : v === null || v === undefined ? '' : JSON.stringify(v);
const cut = (text: string, n = 140) => (text.length > n ? `${text.slice(0, n - 1)}…` : text);

/** What an event says, in words; a kind this viewer does not know says which it is. */
export function describe(e: SvcEvent): string {
  const p = e.payload as Record<string, unknown>;
  switch (e.kind) {
    case 'node.state': {
      const from = p.from === null ? 'created' : str(p.from);
      const reason = p.reason === null || p.reason === undefined ? '' : ` — ${str(p.reason)}`;
      return `${from} → ${str(p.to)} (${str(p.action)})${reason}`;
    }
    case 'node.turn': {
      const turn = p.turn as {
        index: number;
        text: string;
        tool_calls: { name: string }[];
        usage: { input_tokens: number; output_tokens: number };
        cost_usd: number | null;
      };
      const calls = turn.tool_calls.map((c) => c.name).join(', ');
      const cost = turn.cost_usd === null ? '' : `, ${usd(turn.cost_usd)}`;
      return `turn ${turn.index}: ${tokens(turn.usage.input_tokens)} in / ${tokens(turn.usage.output_tokens)} out${cost}${calls === '' ? '' : `; calls ${calls}`}${turn.text === '' ? '' : ` — “${cut(turn.text, 80)}”`}`;
    }
    case 'node.tool': {
      const call = p.tool_call as { name: string; status: string; output: unknown };
      const out = call.status === 'error' ? `: ${cut(str(call.output), 100)}` : '';
      return `${call.name} ${call.status === 'pending' ? 'running' : call.status}${out}`;
    }
    case 'node.mail': {
      const mail = p.mail as { from: { kind: string; id: string | null }; text: string };
      const from = mail.from.kind === 'owner' ? 'you' : `${mail.from.kind} ${mail.from.id ?? ''}`;
      return `message from ${from.trim()}: ${cut(mail.text)}`;
    }
    case 'node.report':
      return `report: ${cut(str((p.report as { text: string }).text))}`;
    case 'node.job': {
      const job = p.job as { title: string; state: string; exit_code: number | null };
      const exit = job.exit_code === null ? '' : ` (exit ${job.exit_code})`;
      return `job “${cut(job.title, 60)}” ${job.state}${exit}`;
    }
    case 'node.fault': {
      const fault = p.fault as { code: string; message: string; fatal: boolean };
      return `${fault.fatal ? 'fatal ' : ''}fault ${fault.code}: ${cut(fault.message)}`;
    }
    case 'node.outcome': {
      const o = p.outcome as {
        state: string;
        summary: string | null;
        error: { message: string } | null;
      };
      return `${o.state}${o.summary ? `: ${cut(o.summary)}` : ''}${o.error ? ` — ${cut(o.error.message)}` : ''}`;
    }
    case 'node.updated':
      return `changed ${Object.keys((p.changes as object) ?? {}).join(', ') || 'nothing'}`;
    default:
      return '';
  }
}
