import { useEffect, useRef, useState } from 'preact/hooks';
import { allPages } from '../api.ts';
import { span, tokens, usd } from '../format.ts';
import { Loaded, StateBadge } from '../parts.tsx';
import { href } from '../router.ts';
import type { SvcNode } from '../types.ts';
import { useLoad } from '../use-load.ts';
import { useNow } from '../use-now.ts';
import { Attention } from './attention.tsx';
import { WaitingOn } from './waiting-on.tsx';

const STATES = ['queued', 'running', 'waiting', 'done', 'failed', 'cancelled'] as const;

interface Filter {
  state: string;
  app: string;
  profile: string;
  text: string;
}
const NO_FILTER: Filter = { state: '', app: '', profile: '', text: '' };

/** A node the person has to act on: it failed, or waits for their answer or a raised budget. */
function needsYou(n: SvcNode): boolean {
  return (
    n.state === 'failed' ||
    (n.state === 'waiting' && (n.waiting_on?.for === 'human' || n.waiting_on?.for === 'budget'))
  );
}

/**
 * Children by parent id ('' for the roots): the trees that need the person first, then newest
 * first (what was started last is on top); children in the order they were spawned.
 */
function byParent(nodes: readonly SvcNode[]): Map<string, SvcNode[]> {
  const ids = new Set(nodes.map((n) => n.id));
  const children = new Map<string, SvcNode[]>();
  const urgent = new Set(nodes.filter(needsYou).map((n) => n.root_id));
  for (const node of nodes) {
    // A node whose parent is not in the list is shown as a root rather than lost.
    const key = node.parent_id !== null && ids.has(node.parent_id) ? node.parent_id : '';
    const list = children.get(key) ?? [];
    list.push(node);
    children.set(key, list);
  }
  for (const [key, list] of children) {
    list.sort((a, b) =>
      key === ''
        ? Number(urgent.has(b.root_id)) - Number(urgent.has(a.root_id)) ||
          b.created_at.localeCompare(a.created_at)
        : a.created_at.localeCompare(b.created_at),
    );
  }
  return children;
}

/** Which subtrees the person folded away, and how to fold or unfold one. */
interface Fold {
  folded: ReadonlySet<string>;
  toggle: (id: string) => void;
}

const appOf = (n: SvcNode) => n.app_id ?? 'owner';

function matches(n: SvcNode, f: Filter): boolean {
  if (f.state !== '' && n.state !== f.state) return false;
  if (f.app !== '' && appOf(n) !== f.app) return false;
  if (f.profile !== '' && n.profile !== f.profile) return false;
  if (f.text !== '') {
    const text = f.text.toLowerCase();
    return [n.title, n.task, n.id].some((s) => s.toLowerCase().includes(text));
  }
  return true;
}

/** The nodes that match and every ancestor of one, so a match is shown in its tree. */
function shown(nodes: readonly SvcNode[], f: Filter): Set<string> {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const keep = new Set<string>();
  for (const n of nodes) {
    if (!matches(n, f)) continue;
    for (let at: SvcNode | undefined = n; at !== undefined && !keep.has(at.id); ) {
      keep.add(at.id);
      at = at.parent_id === null ? undefined : byId.get(at.parent_id);
    }
  }
  return keep;
}

function Tree({
  parent,
  tree,
  keep,
  now,
  fold,
}: {
  parent: string;
  tree: Map<string, SvcNode[]>;
  keep: Set<string>;
  now: number;
  fold: Fold;
}) {
  const list = tree.get(parent)?.filter((n) => keep.has(n.id));
  if (list === undefined || list.length === 0) return null;
  return (
    <ul class={parent === '' ? 'tree' : 'subtree'}>
      {list.map((node) => {
        const children = tree.get(node.id)?.filter((n) => keep.has(n.id)).length ?? 0;
        const folded = fold.folded.has(node.id);
        return (
          <li key={node.id} data-node-id={node.id} data-state={node.state}>
            <div class="node-row">
              {children === 0 ? (
                <span class="fold-space" />
              ) : (
                <button
                  type="button"
                  class="fold"
                  aria-expanded={!folded}
                  aria-label={`${folded ? 'Show' : 'Hide'} the ${children} ${children === 1 ? 'child' : 'children'} of ${node.title || node.id}`}
                  onClick={() => fold.toggle(node.id)}
                >
                  {folded ? `▸ ${children}` : '▾'}
                </button>
              )}
              <StateBadge state={node.state} />
              <a href={href.node(node.id)} class="node-title">
                {node.title || node.id}
              </a>
              <span class="muted node-stats">
                {node.model === null ? '' : `${node.model.model} · `}
                {node.usage.turns} {node.usage.turns === 1 ? 'turn' : 'turns'} ·{' '}
                {tokens(node.usage.input_tokens + node.usage.output_tokens)} tok ·{' '}
                {usd(node.usage.cost_usd)} ·{' '}
                <span class="duration">
                  {span(node.started_at ?? node.created_at, node.finished_at, now)}
                </span>
              </span>
              {node.state === 'waiting' && node.waiting_on !== null ? (
                <span class="reason">
                  <WaitingOn waiting={node.waiting_on} />
                </span>
              ) : (
                node.state_reason !== null && <span class="muted reason">{node.state_reason}</span>
              )}
            </div>
            {!folded && <Tree parent={node.id} tree={tree} keep={keep} now={now} fold={fold} />}
          </li>
        );
      })}
    </ul>
  );
}

/**
 * What needs the person, then every tree (those that need them first, then newest first),
 * filtered; live from node events.
 */
export function Canvas({ version, inbox }: { version: number; inbox: number }) {
  const load = useLoad(() => allPages<SvcNode>('/v1/nodes'), [version]);
  const [filter, setFilter] = useState<Filter>(NO_FILTER);
  const [folded, setFolded] = useState<ReadonlySet<string>>(new Set());
  const fold: Fold = {
    folded,
    toggle: (id) =>
      setFolded((now) => {
        const next = new Set(now);
        if (!next.delete(id)) next.add(id);
        return next;
      }),
  };
  const running = load.state === 'ready' && load.value.some((n) => n.state === 'running');
  const now = useNow(running);
  return (
    <section aria-labelledby="canvas-title">
      <div class="title-row">
        <h2 id="canvas-title">Canvas</h2>
        <a class="button" href={href.newNode}>
          New node or run
        </a>
      </div>
      <Attention version={version + inbox} />
      <Loaded load={load}>
        {(nodes) =>
          nodes.length === 0 ? (
            <p>
              No nodes yet. <a href={href.newNode}>Start one</a>, or use{' '}
              <code>svc node create</code>.
            </p>
          ) : (
            <Forest nodes={nodes} filter={filter} setFilter={setFilter} now={now} fold={fold} />
          )
        }
      </Loaded>
    </section>
  );
}

function Forest({
  nodes,
  filter,
  setFilter,
  now,
  fold,
}: {
  nodes: SvcNode[];
  filter: Filter;
  setFilter: (f: Filter) => void;
  now: number;
  fold: Fold;
}) {
  const keep = shown(nodes, filter);
  const apps = [...new Set(nodes.map(appOf))].sort();
  const profiles = [...new Set(nodes.map((n) => n.profile))].sort();
  const set = (key: keyof Filter) => (e: Event) =>
    setFilter({ ...filter, [key]: (e.currentTarget as HTMLInputElement).value });
  const filtered = filter !== NO_FILTER;
  const search = useRef<HTMLInputElement>(null);
  // "/" jumps to the search, as in most places with a list to search; not while typing.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const typing = (e.target as Element | null)?.closest('input, textarea, select') != null;
      if (e.key !== '/' || typing || e.ctrlKey || e.metaKey || e.altKey) return;
      e.preventDefault();
      search.current?.focus();
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, []);
  return (
    <>
      <form class="filters" aria-label="Filter nodes" onSubmit={(e) => e.preventDefault()}>
        <label>
          Search
          <input
            ref={search}
            aria-keyshortcuts="/"
            type="search"
            value={filter.text}
            placeholder="title, task or id"
            onInput={set('text')}
          />
        </label>
        <label>
          State
          <select value={filter.state} onChange={set('state')}>
            <option value="">any</option>
            {STATES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <label>
          App
          <select value={filter.app} onChange={set('app')}>
            <option value="">any</option>
            {apps.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
        </label>
        <label>
          Profile
          <select value={filter.profile} onChange={set('profile')}>
            <option value="">any</option>
            {profiles.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
        </label>
        {filtered && (
          <button type="button" onClick={() => setFilter(NO_FILTER)}>
            Clear
          </button>
        )}
      </form>
      <p class="muted">
        {filtered ? `${nodes.filter((n) => matches(n, filter)).length} of ` : ''}
        {nodes.length} {nodes.length === 1 ? 'node' : 'nodes'}
      </p>
      {keep.size === 0 ? (
        <p>No node matches.</p>
      ) : (
        <Tree parent="" tree={byParent(nodes)} keep={keep} now={now} fold={fold} />
      )}
    </>
  );
}
