import { useState } from 'preact/hooks';
import { ConfirmButton } from '../action.tsx';
import { api, errorText } from '../api.ts';
import { Json, StateBadge, Time } from '../parts.tsx';
import { href } from '../router.ts';
import type { InboxResponse, SvcNode, Ticket } from '../types.ts';
import { useLoad } from '../use-load.ts';
import { formData, formFields, SchemaFields } from './schema-form.tsx';

const OPEN = new Set(['open', 'in_progress']);

/** What became of a ticket, said by the list it sits in (the card itself may be gone). */
export type Answered = (text: string) => void;

/**
 * One inbox ticket: who asks (the node's title and its tree), its content and, while it is open,
 * the ways to answer, note or decline it; once answered, the answer.
 */
export function TicketCard({ ticket: t, onDone }: { ticket: Ticket; onDone: Answered }) {
  return (
    <article class="ticket" aria-labelledby={`${t.id}-title`} data-ticket-id={t.id}>
      <header>
        <h3 id={`${t.id}-title`}>
          <a href={href.ticket(t.id)}>{t.title}</a>
        </h3>
        <p class="muted">
          <StateBadge state={t.state} /> {t.kind} · asked by <Asker ticket={t} /> ·{' '}
          <Time at={t.createdAt} />
        </p>
      </header>
      {t.body !== '' && <pre class="text">{t.body}</pre>}
      {t.progressNote !== null && <p>Progress note: {t.progressNote}</p>}
      {OPEN.has(t.state) ? <Respond ticket={t} onDone={onDone} /> : <Answer ticket={t} />}
    </article>
  );
}

/** The asking node by its title, with the tree it belongs to; an app or the owner by name. */
function Asker({ ticket: t }: { ticket: Ticket }) {
  const id = t.asker.nodeId;
  const load = useLoad(async () => {
    if (id === null) return null;
    const node = await api<SvcNode>('GET', `/v1/nodes/${encodeURIComponent(id)}`);
    const root =
      node.root_id === node.id
        ? null
        : await api<SvcNode>('GET', `/v1/nodes/${encodeURIComponent(node.root_id)}`).catch(
            () => null,
          );
    return { node, root };
  }, [id]);
  if (id === null) return <>{t.asker.appId ?? 'you'}</>;
  const found = load.state === 'ready' ? load.value : null;
  return (
    <>
      <a href={href.node(id)} class="asker">
        {found?.node.title || id}
      </a>
      {found?.root != null && (
        <>
          {' '}
          in the tree of{' '}
          <a href={href.node(found.root.id)} class="asker-root">
            {found.root.title || found.root.id}
          </a>
        </>
      )}
      {t.asker.appId !== null && ` (app ${t.asker.appId})`}
    </>
  );
}

/** A closed ticket's answer, and who gave it: the inbox is the owner's, so it was you. */
function Answer({ ticket: t }: { ticket: Ticket }) {
  const load = useLoad(
    () =>
      t.state === 'answered'
        ? api<InboxResponse>('GET', `/v1/human/inbox/${encodeURIComponent(t.id)}/response`)
        : Promise.resolve(null),
    [t.id, t.state],
  );
  if (t.state !== 'answered') {
    return (
      <p class="muted answer">
        {t.state}
        {t.progressNote === null ? '' : `: ${t.progressNote}`}
      </p>
    );
  }
  if (load.state !== 'ready' || load.value === null) return null;
  const r = load.value;
  return (
    <div class="answer">
      <p>
        <strong>Answered by you</strong> · <Time at={r.respondedAt} />
      </p>
      {r.choice !== null && (
        <p>
          Choice: <strong>{r.choice}</strong>
        </p>
      )}
      {r.text !== null && <pre class="text">{r.text}</pre>}
      {r.data !== null && r.data !== undefined && <Json value={r.data} />}
    </div>
  );
}

function Respond({ ticket: t, onDone }: { ticket: Ticket; onDone: Answered }) {
  const fields = formFields(t.responseSchema);
  const [choice, setChoice] = useState<string | null>(null);
  const [text, setText] = useState('');
  const [data, setData] = useState('');
  const [values, setValues] = useState<Record<string, string>>({});
  const [note, setNote] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const path = `/v1/human/inbox/${encodeURIComponent(t.id)}`;

  async function send(action: string, body: Record<string, unknown>, done: string) {
    setBusy(true);
    setError(null);
    try {
      await api('POST', `${path}/${action}`, body);
      onDone(done);
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  }

  function respond(event: Event) {
    event.preventDefault();
    const body: Record<string, unknown> = {};
    if (choice !== null) body.choice = choice;
    if (text.trim() !== '') body.text = text;
    if (fields !== null) body.data = formData(fields, values);
    else if (data.trim() !== '') {
      try {
        body.data = JSON.parse(data);
      } catch {
        setError('Data must be JSON.');
        return;
      }
    }
    const said = [choice, text.trim()].filter((s) => s !== null && s !== '').join(', ');
    void send('respond', body, `Answered “${t.title}”${said === '' ? '' : `: ${said}`}.`);
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
        {fields !== null && (
          <SchemaFields
            id={t.id}
            fields={fields}
            values={values}
            onChange={setValues}
            schema={t.responseSchema}
          />
        )}
        <label for={`${t.id}-text`}>Answer</label>
        <textarea
          id={`${t.id}-text`}
          rows={3}
          value={text}
          onInput={(e) => setText(e.currentTarget.value)}
        />
        {t.responseSchema !== null && fields === null && (
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
          void send(
            'progress',
            note.trim() === '' ? {} : { note },
            `Marked “${t.title}” in progress.`,
          );
        }}
      >
        <label for={`${t.id}-note`}>Note or reason</label>
        <input id={`${t.id}-note`} value={note} onInput={(e) => setNote(e.currentTarget.value)} />
        <button type="submit" disabled={busy}>
          Mark in progress
        </button>
        <ConfirmButton
          label="Decline"
          question="Decline it? The asker gets no answer."
          disabled={busy}
          onConfirm={() =>
            void send(
              'cancel',
              note.trim() === '' ? {} : { reason: note },
              `Declined “${t.title}”.`,
            )
          }
        />
      </form>
      {error !== null && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </>
  );
}
