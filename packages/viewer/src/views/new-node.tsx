import { useState } from 'preact/hooks';
import { StatusLine, useAction } from '../action.tsx';
import { allPages, api } from '../api.ts';
import { DEFAULT_SCOPES, scopeList } from '../node-rules.ts';
import { href } from '../router.ts';
import type { Profile, SvcNode } from '../types.ts';
import { useLoad } from '../use-load.ts';
import { ScopesField } from './node-actions.tsx';

/**
 * A new root node or run (or a child, from a node's page): task, title, profile, model and
 * scopes. The session names the scopes, without `svc:act` (docs/security.md); the new node's
 * page opens once the daemon has it.
 */
export function NewNode({ parent }: { parent: string | null }) {
  const profiles = useLoad(() => allPages<Profile>('/v1/profiles', 5), []);
  const action = useAction();
  const [kind, setKind] = useState<'node' | 'run'>('node');
  const [task, setTask] = useState('');
  const [title, setTitle] = useState('');
  const [profile, setProfile] = useState('');
  const [model, setModel] = useState('');
  const [scopes, setScopes] = useState(DEFAULT_SCOPES);
  const [maxCost, setMaxCost] = useState('');

  function submit(e: Event) {
    e.preventDefault();
    const body: Record<string, unknown> = { task, scopes: scopeList(scopes) };
    if (title.trim() !== '') body.title = title.trim();
    if (profile !== '') body.profile = profile;
    const slash = model.indexOf('/');
    if (model.trim() !== '') {
      if (slash < 1) {
        action.say({
          error: true,
          text: 'Model is provider/model, e.g. anthropic/claude-sonnet-4-5.',
        });
        return;
      }
      body.model = { provider: model.slice(0, slash).trim(), model: model.slice(slash + 1).trim() };
    }
    if (maxCost.trim() !== '') body.budgets = { max_cost_usd: Number(maxCost) };
    if (parent !== null && kind === 'node') body.parent_id = parent;
    void action
      .run(
        async () =>
          kind === 'run'
            ? (await api<{ node_id: string }>('POST', '/v1/runs', body)).node_id
            : (await api<SvcNode>('POST', '/v1/nodes', body)).id,
        () => (kind === 'run' ? 'Run started.' : 'Node created.'),
      )
      .then((id) => {
        if (id !== null) location.hash = href.node(id);
      });
  }

  const profileList = profiles.state === 'ready' ? profiles.value : [];
  return (
    <section aria-labelledby="new-title">
      <h2 id="new-title">{parent === null ? 'New node or run' : 'New child node'}</h2>
      {parent !== null && (
        <p>
          Under <a href={href.node(parent)}>{parent}</a>.
        </p>
      )}
      <form class="respond" aria-label="New node" onSubmit={submit}>
        {parent === null && (
          <fieldset>
            <legend>Start</legend>
            <label class="choice">
              <input
                type="radio"
                name="new-kind"
                checked={kind === 'node'}
                onChange={() => setKind('node')}
              />
              a node
            </label>
            <label class="choice">
              <input
                type="radio"
                name="new-kind"
                checked={kind === 'run'}
                onChange={() => setKind('run')}
              />
              a run (a root node with a run handle)
            </label>
          </fieldset>
        )}
        <label for="new-task">Task</label>
        <textarea
          id="new-task"
          rows={5}
          required
          value={task}
          onInput={(e) => setTask(e.currentTarget.value)}
        />
        <label for="new-title-input">Title (optional)</label>
        <input
          id="new-title-input"
          value={title}
          placeholder="the task's first line"
          onInput={(e) => setTitle(e.currentTarget.value)}
        />
        <label for="new-profile">Profile</label>
        <select
          id="new-profile"
          value={profile}
          onChange={(e) => setProfile(e.currentTarget.value)}
        >
          <option value="">default</option>
          {profileList
            .filter((p) => p.name !== 'default')
            .map((p) => (
              <option key={p.name} value={p.name}>
                {p.name}
                {p.description === null ? '' : ` — ${p.description}`}
              </option>
            ))}
        </select>
        <label for="new-model">Model (optional)</label>
        <input
          id="new-model"
          class="mono"
          value={model}
          placeholder="the profile's, e.g. anthropic/claude-sonnet-4-5"
          onInput={(e) => setModel(e.currentTarget.value)}
        />
        <ScopesField id="new-scopes" value={scopes} onInput={setScopes} />
        <label for="new-cost">Max cost in USD (optional)</label>
        <input
          id="new-cost"
          type="number"
          min="0.01"
          step="0.01"
          value={maxCost}
          placeholder="the profile's"
          onInput={(e) => setMaxCost(e.currentTarget.value)}
        />
        <button type="submit" disabled={action.busy || task.trim() === ''}>
          {kind === 'run' ? 'Start run' : 'Create node'}
        </button>
      </form>
      <StatusLine status={action.status} />
    </section>
  );
}
