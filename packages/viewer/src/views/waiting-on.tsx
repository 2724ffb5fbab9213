import { api } from '../api.ts';
import { Time } from '../parts.tsx';
import { href } from '../router.ts';
import type { SvcNode } from '../types.ts';
import { useLoad } from '../use-load.ts';

type Waiting = NonNullable<SvcNode['waiting_on']>;

/** What a waiting node waits on, each as a link to it: the ticket, the children, the timer. */
export function WaitingOn({
  waiting,
  titles,
}: {
  waiting: Waiting;
  titles?: ReadonlyMap<string, string>;
}) {
  switch (waiting.for) {
    case 'human':
      return (
        <span class="waiting-on">
          waits for your answer: <TicketLink request={waiting.request_id} />
        </span>
      );
    case 'children':
      return (
        <span class="waiting-on">
          waits for {waiting.mode === 'all' ? 'all' : 'any'} of its children:{' '}
          {waiting.node_ids.map((id, i) => (
            <span key={id}>
              {i > 0 && ', '}
              <a href={href.node(id)}>{titles?.get(id) ?? id}</a>
            </span>
          ))}
        </span>
      );
    case 'timer':
      return (
        <span class="waiting-on">
          waits until <Time at={waiting.until} />
        </span>
      );
    case 'budget':
      return (
        <span class="waiting-on">
          parked at its {waiting.budget.replaceAll('_', ' ')} budget: raise it to go on
        </span>
      );
    case 'mail':
      return <span class="waiting-on">waits for a message</span>;
  }
}

/** The inbox ticket of a human request (a request's ticket changes when it is re-asked). */
function TicketLink({ request }: { request: string }) {
  const load = useLoad(
    () =>
      api<{ ticket_id: string; title: string }>(
        'GET',
        `/v1/human/requests/${encodeURIComponent(request)}`,
      ),
    [request],
  );
  if (load.state !== 'ready') return <code>{request}</code>;
  return <a href={href.ticket(load.value.ticket_id)}>{load.value.title}</a>;
}
