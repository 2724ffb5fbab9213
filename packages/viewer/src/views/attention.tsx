import { api } from '../api.ts';
import { Time } from '../parts.tsx';
import { href } from '../router.ts';
import type { AttentionItem as Item, Page } from '../types.ts';
import { useLoad } from '../use-load.ts';

const WHAT: Readonly<Record<Item['kind'], string>> = {
  ticket: 'asks you',
  node_failed: 'failed',
  node_waiting_human: 'waits for you',
  node_budget: 'parked at a budget',
  cron_failed: 'cron failed',
};

function target(item: Item): string {
  if (item.ticket_id !== null) return href.ticket(item.ticket_id);
  if (item.node_id !== null) return href.node(item.node_id);
  return href.crons;
}

/** What needs the person now (`canvas.attention`), first on the canvas, each a link to act on. */
export function Attention({ version }: { version: number }) {
  const load = useLoad(() => api<Page<Item>>('GET', '/v1/canvas/attention?limit=20'), [version]);
  if (load.state !== 'ready' || load.value.data.length === 0) return null;
  const items = load.value.data;
  return (
    <section aria-labelledby="attention-title" class="attention">
      <h3 id="attention-title">
        Needs you ({items.length}
        {load.value.has_more ? '+' : ''})
      </h3>
      <ul>
        {items.map((item) => (
          <li
            key={`${item.kind}-${item.ticket_id ?? item.node_id ?? item.cron_id}`}
            data-kind={item.kind}
          >
            <span class={`badge badge-attention-${item.kind}`}>{WHAT[item.kind]}</span>{' '}
            <a href={target(item)}>{item.title}</a> <span class="muted">{item.reason}</span>{' '}
            <span class="muted">
              · <Time at={item.since} />
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}
