import { useState } from 'preact/hooks';
import { StatusLine, useAction } from '../action.tsx';
import { allPages, api } from '../api.ts';
import { Loaded } from '../parts.tsx';
import { href } from '../router.ts';
import type { Page, Ticket } from '../types.ts';
import { useLoad } from '../use-load.ts';
import { TicketCard } from './ticket.tsx';

/**
 * Open and in-progress tickets, newest first, each answerable in place; or one ticket. What an
 * answer did is said here, above the list, as the answered card leaves it.
 */
export function Inbox({ ticket, version }: { ticket: string | null; version: number }) {
  const [local, setLocal] = useState(0);
  const confirm = useAction();
  const done = (text: string) => {
    confirm.say({ error: false, text });
    setLocal((n) => n + 1);
  };
  const load = useLoad(
    () =>
      ticket === null
        ? allPages<Ticket>('/v1/human/inbox')
        : api<Ticket>('GET', `/v1/human/inbox/${encodeURIComponent(ticket)}`).then((t) => [t]),
    [ticket, version, local],
  );
  return (
    <section aria-labelledby="inbox-title">
      <h2 id="inbox-title">Inbox</h2>
      <nav aria-label="Inbox" class="subnav">
        <a href={href.inbox} aria-current={ticket === null ? 'page' : undefined}>
          Open
        </a>
        <a href={href.history}>History</a>
      </nav>
      <StatusLine status={confirm.status} />
      <Loaded load={load}>
        {(tickets) =>
          tickets.length === 0 ? (
            <p>Nothing waits for you.</p>
          ) : (
            tickets.map((t) => <TicketCard key={t.id} ticket={t} onDone={done} />)
          )
        }
      </Loaded>
    </section>
  );
}

/** Closed tickets, newest first (one page at a time), each with its answer. */
export function History({ version }: { version: number }) {
  const [after, setAfter] = useState<string[]>([]);
  const cursor = after.at(-1);
  const load = useLoad(
    () =>
      api<Page<Ticket>>(
        'GET',
        `/v1/human/inbox/history?limit=50${cursor === undefined ? '' : `&after=${encodeURIComponent(cursor)}`}`,
      ),
    [version, cursor],
  );
  return (
    <section aria-labelledby="history-title">
      <h2 id="history-title">Inbox history</h2>
      <nav aria-label="Inbox" class="subnav">
        <a href={href.inbox}>Open</a>
        <a href={href.history} aria-current="page">
          History
        </a>
      </nav>
      <Loaded load={load}>
        {(page) => (
          <>
            {page.data.length === 0 && <p>No closed tickets.</p>}
            {page.data.map((t) => (
              <TicketCard key={t.id} ticket={t} onDone={() => {}} />
            ))}
            {after.length > 0 && (
              <button type="button" onClick={() => setAfter(after.slice(0, -1))}>
                Newer
              </button>
            )}
            {page.has_more && page.next_cursor !== null && (
              <button type="button" onClick={() => setAfter([...after, page.next_cursor!])}>
                Older
              </button>
            )}
          </>
        )}
      </Loaded>
    </section>
  );
}
