import { useState } from 'preact/hooks';
import { api, errorText } from '../api.ts';
import { Json, StateBadge, Time } from '../parts.tsx';
import { href } from '../router.ts';
import type { Ticket } from '../types.ts';

const OPEN = new Set(['open', 'in_progress']);

/** One inbox ticket: its content and, while it is open, the ways to answer, note or decline it. */
export function TicketCard({ ticket: t, onChange }: { ticket: Ticket; onChange: () => void }) {
  return (
    <article class="ticket" aria-labelledby={`${t.id}-title`} data-ticket-id={t.id}>
      <header>
        <h3 id={`${t.id}-title`}>
          <a href={href.ticket(t.id)}>{t.title}</a>
        </h3>
        <p class="muted">
          <StateBadge state={t.state} /> {t.kind} · asked by{' '}
          {t.asker.nodeId !== null ? (
            <a href={href.node(t.asker.nodeId)}>{t.asker.nodeId}</a>
          ) : (
            (t.asker.appId ?? 'the owner')
          )}{' '}
          · <Time at={t.createdAt} />
        </p>
      </header>
      {t.body !== '' && <pre class="text">{t.body}</pre>}
      {t.progressNote !== null && <p>Progress note: {t.progressNote}</p>}
      {OPEN.has(t.state) && <Respond ticket={t} onChange={onChange} />}
    </article>
  );
}

function Respond({ ticket: t, onChange }: { ticket: Ticket; onChange: () => void }) {
  const [choice, setChoice] = useState<string | null>(null);
  const [text, setText] = useState('');
  const [data, setData] = useState('');
  const [note, setNote] = useState('');
  const [status, setStatus] = useState<{ error: boolean; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const path = `/v1/human/inbox/${encodeURIComponent(t.id)}`;

  async function send(action: string, body: Record<string, unknown>, done: string) {
    setBusy(true);
    try {
      await api('POST', `${path}/${action}`, body);
      setStatus({ error: false, text: done });
      onChange();
    } catch (error) {
      setStatus({ error: true, text: errorText(error) });
    } finally {
      setBusy(false);
    }
  }

  function respond(event: Event) {
    event.preventDefault();
    const body: Record<string, unknown> = {};
    if (choice !== null) body.choice = choice;
    if (text.trim() !== '') body.text = text;
    if (data.trim() !== '') {
      try {
        body.data = JSON.parse(data);
      } catch {
        setStatus({ error: true, text: 'Data must be JSON.' });
        return;
      }
    }
    void send('respond', body, 'Answer sent.');
  }

  return (
    <>
      <form class="respond" onSubmit={respond} aria-label={`Answer ${t.title}`}>
        {t.options.length > 0 && (
          <fieldset>
            <legend>Choice</legend>
            {t.options.map((option) => (
              <label key={option} class="choice">
                <input
                  type="radio"
                  name={`${t.id}-choice`}
                  value={option}
                  checked={choice === option}
                  onChange={() => setChoice(option)}
                />
                {option}
              </label>
            ))}
          </fieldset>
        )}
        <label for={`${t.id}-text`}>Answer</label>
        <textarea
          id={`${t.id}-text`}
          rows={3}
          value={text}
          onInput={(e) => setText(e.currentTarget.value)}
        />
        {t.responseSchema !== null && (
          <>
            <label for={`${t.id}-data`}>Data (JSON matching the schema)</label>
            <textarea
              id={`${t.id}-data`}
              rows={4}
              class="mono"
              value={data}
              onInput={(e) => setData(e.currentTarget.value)}
            />
            <details>
              <summary>Schema</summary>
              <Json value={t.responseSchema} />
            </details>
          </>
        )}
        <button type="submit" disabled={busy}>
          Send answer
        </button>
      </form>
      <form
        class="inline"
        aria-label={`Progress on ${t.title}`}
        onSubmit={(e) => {
          e.preventDefault();
          void send('progress', note.trim() === '' ? {} : { note }, 'Marked in progress.');
        }}
      >
        <label for={`${t.id}-note`}>Note or reason</label>
        <input id={`${t.id}-note`} value={note} onInput={(e) => setNote(e.currentTarget.value)} />
        <button type="submit" disabled={busy}>
          Mark in progress
        </button>
        <button
          type="button"
          disabled={busy}
          onClick={() =>
            void send('cancel', note.trim() === '' ? {} : { reason: note }, 'Declined.')
          }
        >
          Decline
        </button>
      </form>
      {status !== null && (
        <p role={status.error ? 'alert' : 'status'} class={status.error ? 'error' : 'ok'}>
          {status.text}
        </p>
      )}
    </>
  );
}
