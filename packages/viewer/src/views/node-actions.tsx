import { useState } from 'preact/hooks';
import { type ActionStatus, ConfirmButton, StatusLine, useAction } from '../action.tsx';
import { api } from '../api.ts';
import { allows, DEFAULT_SCOPES, scopeList } from '../node-rules.ts';
import { href } from '../router.ts';
import type { SvcNode } from '../types.ts';

/**
 * What the person can do to a node from its page, each shown only where its state allows
 * (`node-rules.ts`) and each answered with a line saying it happened; the page itself follows
 * the node's events, so the new state shows as it lands. Cancel and interrupt ask first.
 */
export function NodeActions({ node, onChange }: { node: SvcNode; onChange: () => void }) {
  const action = useAction();
  const path = `/v1/nodes/${encodeURIComponent(node.id)}`;
  // Answers whether it worked, so a form keeps what the person typed when it did not.
  const post = async (verb: string, body: unknown, done: string) => {
    const sent = await action.run(
      () => api('POST', `${path}/${verb}`, body),
      () => done,
    );
    onChange();
    return sent !== null;
  };
  const can = (a: Parameters<typeof allows>[1]) => allows(node.state, a);
  return (
    <section aria-labelledby="actions-title" class="node-actions">
      <h3 id="actions-title">Actions</h3>
      <div class="actions">
        {can('interrupt') && (
          <ConfirmButton
            label="Interrupt"
            question="Stop the turn in flight? The node then waits for a message."
            disabled={action.busy}
            onConfirm={() => post('interrupt', {}, 'Interrupted: the node waits for a message.')}
          />
        )}
        {can('cancel') && (
          <ConfirmButton
            label="Cancel node"
            question="Cancel this node and its children for good?"
            disabled={action.busy}
            onConfirm={() => post('cancel', { reason: 'cancelled in the viewer' }, 'Cancelled.')}
          />
        )}
        {can('revive') && <Revive node={node} busy={action.busy} post={post} />}
        <a class="button" href={href.newChild(node.id)}>
          New child node
        </a>
      </div>
      <StatusLine status={action.status} />
      {can('message') && <Message busy={action.busy} post={post} />}
      {can('budgets') && <Budgets node={node} action={action} onChange={onChange} />}
      {can('fork') && <Fork node={node} />}
    </section>
  );
}

type Post = (verb: string, body: unknown, done: string) => Promise<boolean>;

function Message({ busy, post }: { busy: boolean; post: Post }) {
  const [text, setText] = useState('');
  return (
    <form
      class="respond"
      aria-label="Message the node"
      onSubmit={(e) => {
        e.preventDefault();
        if (text.trim() === '') return;
        void post('messages', { text }, 'Message sent.').then((sent) => sent && setText(''));
      }}
    >
      <label for="node-message">Message</label>
      <textarea
        id="node-message"
        rows={2}
        value={text}
        placeholder="Mail the node; a waiting node wakes to read it"
        onInput={(e) => setText(e.currentTarget.value)}
        onKeyDown={(e) => {
          // Ctrl/⌘+Enter sends, as in a chat box.
          if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) e.currentTarget.form?.requestSubmit();
        }}
      />
      <button type="submit" disabled={busy || text.trim() === ''}>
        Send message
      </button>
    </form>
  );
}

function Revive({ node, busy, post }: { node: SvcNode; busy: boolean; post: Post }) {
  const [text, setText] = useState('');
  return (
    <form
      class="inline"
      aria-label="Revive the node"
      onSubmit={(e) => {
        e.preventDefault();
        void post('revive', text.trim() === '' ? {} : { message: text }, 'Revived: queued again.');
      }}
    >
      <label for="revive-message">Message on revival (optional)</label>
      <input
        id="revive-message"
        value={text}
        placeholder={node.state === 'failed' ? 'e.g. the key is fixed, try again' : ''}
        onInput={(e) => setText(e.currentTarget.value)}
      />
      <button type="submit" disabled={busy}>
        Revive
      </button>
    </form>
  );
}

const BUDGETS = [
  ['max_turns', 'Max turns', '1'],
  ['max_tokens', 'Max tokens', '1'],
  ['max_cost_usd', 'Max cost (USD)', '0.01'],
] as const;

/**
 * The node's budgets. Its answer shows in the section's status line, not in a line of its own:
 * a raised budget can wake the node and finish it at once, and this form leaves with the state
 * that allowed it, which took its line (and what it said) along.
 */
function Budgets({
  node,
  action,
  onChange,
}: {
  node: SvcNode;
  action: ReturnType<typeof useAction>;
  onChange: () => void;
}) {
  const [values, setValues] = useState<Record<string, string>>(() =>
    Object.fromEntries(BUDGETS.map(([key]) => [key, String(node.budgets[key] ?? '')])),
  );
  const parked = node.waiting_on?.for === 'budget';
  // Open at first when the node is parked at a budget; after that the person's to fold.
  const [open] = useState(parked);
  function save(e: Event) {
    e.preventDefault();
    const budgets: Record<string, number | null> = {};
    for (const [key] of BUDGETS) {
      const text = values[key]?.trim() ?? '';
      budgets[key] = text === '' ? null : Number(text);
    }
    void action
      .run(
        () => api('PATCH', `/v1/nodes/${encodeURIComponent(node.id)}`, { budgets }),
        () =>
          parked ? 'Budgets saved; the node wakes if it is under them now.' : 'Budgets saved.',
      )
      .then(onChange);
  }
  return (
    <details open={open}>
      <summary>Budgets{parked && ' (parked at one: raise it to go on)'}</summary>
      <form class="inline" aria-label="Budgets" onSubmit={save}>
        {BUDGETS.map(([key, label, step]) => (
          <label key={key} class="field">
            {label}
            <input
              type="number"
              min={step}
              step={step}
              value={values[key]}
              placeholder="no limit"
              onInput={(e) => setValues({ ...values, [key]: e.currentTarget.value })}
            />
          </label>
        ))}
        <button type="submit" disabled={action.busy}>
          Save budgets
        </button>
      </form>
    </details>
  );
}

function Fork({ node }: { node: SvcNode }) {
  const action = useAction();
  const [task, setTask] = useState('');
  const [scopes, setScopes] = useState(DEFAULT_SCOPES);
  const [made, setMade] = useState<string | null>(null);
  function fork(e: Event) {
    e.preventDefault();
    const body: Record<string, unknown> = { scopes: scopeList(scopes) };
    if (task.trim() !== '') body.task = task;
    void action.run(
      () => api<SvcNode>('POST', `/v1/nodes/${encodeURIComponent(node.id)}/fork`, body),
      (fork) => {
        setMade(fork.id);
        return `Forked as ${fork.title || fork.id}.`;
      },
    );
  }
  return (
    <details>
      <summary>Fork</summary>
      <form class="respond" aria-label="Fork the node" onSubmit={fork}>
        <label for="fork-task">Add to the copied conversation (optional)</label>
        <textarea
          id="fork-task"
          rows={2}
          value={task}
          onInput={(e) => setTask(e.currentTarget.value)}
        />
        <ScopesField id="fork-scopes" value={scopes} onInput={setScopes} />
        <button type="submit" disabled={action.busy}>
          Fork
        </button>
      </form>
      <ForkStatus status={action.status} made={made} />
    </details>
  );
}

function ForkStatus({ status, made }: { status: ActionStatus | null; made: string | null }) {
  if (status === null) return null;
  return (
    <p role={status.error ? 'alert' : 'status'} class={status.error ? 'error' : 'ok'}>
      {status.text} {!status.error && made !== null && <a href={href.node(made)}>Open it</a>}
    </p>
  );
}

/** The scopes of a node the viewer starts, with what the session may not give said beside. */
export function ScopesField({
  id,
  value,
  onInput,
}: {
  id: string;
  value: string;
  onInput: (value: string) => void;
}) {
  return (
    <>
      <label for={id}>Scopes</label>
      <input id={id} class="mono" value={value} onInput={(e) => onInput(e.currentTarget.value)} />
      <p class="muted hint" id={`${id}-hint`}>
        Comma-separated, within yours. Not <code>svc:act</code> (bash and files): the viewer never
        starts an agent that can run commands; use <code>svc</code> for that.
      </p>
    </>
  );
}
