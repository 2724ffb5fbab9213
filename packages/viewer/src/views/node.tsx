import { useState } from 'preact/hooks';
import { allPages, api } from '../api.ts';
import { span, tokens, usd } from '../format.ts';
import { useLiveText } from '../live-text.ts';
import { FINAL } from '../node-rules.ts';
import { Json, Loaded, StateBadge, Time } from '../parts.tsx';
import { href } from '../router.ts';
import type { Job, Page, SvcEvent, SvcNode } from '../types.ts';
import { useLoad } from '../use-load.ts';
import { useNow } from '../use-now.ts';
import { EventLine } from './event-line.tsx';
import { NodeActions } from './node-actions.tsx';
import { LiveTurnView, Output, Transcript } from './transcript.tsx';
import { WaitingOn } from './waiting-on.tsx';

const EVENTS_PAGE = 100;

/**
 * A node's page: what it is and what it waits on, what can be done to it, its children,
 * outcome, reports and jobs, its transcript with each tool call's result, and its events, live.
 */
export function NodeView({ id, version }: { id: string; version: number }) {
  const [pages, setPages] = useState(1);
  const [local, setLocal] = useState(0);
  const refresh = () => setLocal((n) => n + 1);
  const node = useLoad(
    () => api<SvcNode>('GET', `/v1/nodes/${encodeURIComponent(id)}`),
    [id, version, local],
  );
  const children = useLoad(
    () => allPages<SvcNode>(`/v1/nodes?parent_id=${encodeURIComponent(id)}`, 5),
    [id, version],
  );
  const events = useLoad(() => eventPages(id, pages), [id, version, pages, local]);
  const running = node.state === 'ready' && node.value.state === 'running';
  const now = useNow(running);
  const live = useLiveText(id, running);
  return (
    <section aria-labelledby="node-title">
      <p>
        <a href={href.canvas}>← Canvas</a>
      </p>
      <Loaded load={node}>
        {(n) => {
          const titles = new Map(
            (children.state === 'ready' ? children.value : []).map((c) => [c.id, c.title || c.id]),
          );
          return (
            <>
              <h2 id="node-title">
                {n.title || n.id} <StateBadge state={n.state} />
              </h2>
              <p class="node-summary muted">
                {n.model === null ? 'no model' : `${n.model.provider}/${n.model.model}`} ·{' '}
                {n.usage.turns}
                {n.budgets.max_turns === null ? '' : ` of ${n.budgets.max_turns}`}{' '}
                {n.usage.turns === 1 ? 'turn' : 'turns'} ·{' '}
                {tokens(n.usage.input_tokens + n.usage.output_tokens)}
                {n.budgets.max_tokens === null ? '' : ` of ${tokens(n.budgets.max_tokens)}`} tokens
                · {usd(n.usage.cost_usd)}
                {n.budgets.max_cost_usd === null ? '' : ` of ${usd(n.budgets.max_cost_usd)}`} ·{' '}
                {span(n.started_at ?? n.created_at, n.finished_at, now)}
                {!FINAL.has(n.state) && n.started_at !== null && ' so far'}
                {live.state === 'open' && (
                  <span class="following" data-live="open">
                    {' '}
                    · following the model live
                  </span>
                )}
              </p>
              {n.parent_id !== null && (
                <p class="muted parent">
                  Child of <NodeLink id={n.parent_id} />
                  {n.root_id !== n.parent_id && (
                    <>
                      {' '}
                      in the tree of <NodeLink id={n.root_id} />
                    </>
                  )}
                </p>
              )}
              {n.waiting_on !== null && n.state === 'waiting' && (
                <p class="waiting">
                  <WaitingOn waiting={n.waiting_on} titles={titles} />
                </p>
              )}
              {n.state_reason !== null && n.waiting_on === null && (
                <p class="muted">{n.state_reason}</p>
              )}
              <NodeActions node={n} onChange={refresh} />
              {n.outcome !== null && <Outcome outcome={n.outcome} />}
              <Children load={children} />
              <details class="node-fields">
                <summary>Details</summary>
                <NodeFields node={n} />
              </details>
            </>
          );
        }}
      </Loaded>
      {/* The events of a node that failed to load would only repeat its error. */}
      {node.state !== 'error' && (
        <Loaded load={events}>
          {({ events: list, hasMore }) => (
            <>
              <Reports events={list} />
              <Jobs events={list} />
              <Transcript events={list} />
              <LiveTurnView live={live.turn} events={list} />
              <section aria-labelledby="events-title">
                <h3 id="events-title">Events</h3>
                <ol class="events">
                  {list.map((e) => (
                    <EventLine key={e.seq} event={e} />
                  ))}
                </ol>
                {hasMore && (
                  <button type="button" onClick={() => setPages(pages + 1)}>
                    More events
                  </button>
                )}
              </section>
            </>
          )}
        </Loaded>
      )}
    </section>
  );
}

/** A node by its title (its id until the title loads, or if it cannot be read). */
function NodeLink({ id }: { id: string }) {
  const load = useLoad(() => api<SvcNode>('GET', `/v1/nodes/${encodeURIComponent(id)}`), [id]);
  return <a href={href.node(id)}>{load.state === 'ready' ? load.value.title || id : id}</a>;
}

function Outcome({ outcome }: { outcome: NonNullable<SvcNode['outcome']> }) {
  return (
    <section aria-labelledby="outcome-title" class={`outcome outcome-${outcome.state}`}>
      <h3 id="outcome-title">Outcome</h3>
      <dl class="fields">
        <dt>state</dt>
        <dd>
          <StateBadge state={outcome.state} />
        </dd>
        <dt>summary</dt>
        <dd>{outcome.summary ?? '—'}</dd>
        {outcome.error !== null && (
          <>
            <dt>error</dt>
            <dd class="error">
              {outcome.error.code}: {outcome.error.message}
            </dd>
          </>
        )}
      </dl>
      {outcome.result !== null && <Json value={outcome.result} />}
    </section>
  );
}

function Children({ load }: { load: ReturnType<typeof useLoad<SvcNode[]>> }) {
  if (load.state !== 'ready' || load.value.length === 0) return null;
  return (
    <section aria-labelledby="children-title">
      <h3 id="children-title">Children</h3>
      <ul class="children">
        {load.value.map((c) => (
          <li key={c.id}>
            <StateBadge state={c.state} /> <a href={href.node(c.id)}>{c.title || c.id}</a>{' '}
            <span class="muted">{span(c.started_at ?? c.created_at, c.finished_at)}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

function Reports({ events }: { events: readonly SvcEvent[] }) {
  const reports = events
    .filter((e) => e.kind === 'node.report')
    .map(
      (e) => e.payload.report as { seq: number; text: string; data: unknown; created_at: string },
    );
  if (reports.length === 0) return null;
  return (
    <section aria-labelledby="reports-title">
      <h3 id="reports-title">Reports</h3>
      <ol class="reports">
        {reports.map((r) => (
          <li key={r.seq}>
            <Time at={r.created_at} /> {r.text}
            {r.data !== null && <Json value={r.data} />}
          </li>
        ))}
      </ol>
    </section>
  );
}

/**
 * Each job at its latest event, with its output: the result of the tool call that started it
 * (`tool_call.job_id`), folded as in the transcript.
 */
function Jobs({ events }: { events: readonly SvcEvent[] }) {
  const jobs = new Map<string, Job>();
  const outputs = new Map<string, unknown>();
  for (const e of events) {
    if (e.kind === 'node.job') {
      const job = e.payload.job as Job;
      jobs.set(job.id, job);
    } else if (e.kind === 'node.tool') {
      const call = e.payload.tool_call as {
        job_id: string | null;
        status: string;
        output: unknown;
      };
      if (call.job_id !== null && call.status !== 'pending') outputs.set(call.job_id, call.output);
    }
  }
  if (jobs.size === 0) return null;
  return (
    <section aria-labelledby="jobs-title">
      <h3 id="jobs-title">Jobs</h3>
      <ul class="jobs">
        {[...jobs.values()].map((j) => (
          <li key={j.id} data-job-id={j.id}>
            <StateBadge state={j.state} /> <code>{j.title}</code>{' '}
            <span class="muted">{j.kind}</span>
            {j.exit_code !== null && <span class="muted"> · exit {j.exit_code}</span>}{' '}
            <span class="muted">{span(j.started_at, j.finished_at)}</span>
            {outputs.has(j.id) && (
              <details>
                <summary>output</summary>
                <Output value={outputs.get(j.id)} />
              </details>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

function NodeFields({ node: n }: { node: SvcNode }) {
  return (
    <dl class="fields">
      <dt>id</dt>
      <dd>
        <code>{n.id}</code>
      </dd>
      <dt>state</dt>
      <dd>
        {n.state}
        {n.state_reason !== null && ` — ${n.state_reason}`}
      </dd>
      <dt>parent</dt>
      <dd>
        {n.parent_id === null ? (
          'none (a root)'
        ) : (
          <a href={href.node(n.parent_id)}>{n.parent_id}</a>
        )}
      </dd>
      {n.root_id !== n.id && (
        <>
          <dt>root</dt>
          <dd>
            <a href={href.node(n.root_id)}>{n.root_id}</a>
          </dd>
        </>
      )}
      <dt>model</dt>
      <dd>{n.model === null ? '—' : `${n.model.provider}/${n.model.model}`}</dd>
      <dt>profile</dt>
      <dd>{n.profile}</dd>
      <dt>app</dt>
      <dd>{n.app_id ?? 'the owner'}</dd>
      <dt>scopes</dt>
      <dd>{n.scopes === null ? "the owner's (everything)" : n.scopes.join(', ') || 'none'}</dd>
      <dt>budgets</dt>
      <dd>
        {n.budgets.max_turns ?? '∞'} turns, {n.budgets.max_tokens ?? '∞'} tokens,{' '}
        {n.budgets.max_cost_usd === null ? '∞' : usd(n.budgets.max_cost_usd)}
      </dd>
      <dt>usage</dt>
      <dd>
        {n.usage.turns} turns, {n.usage.input_tokens} in / {n.usage.output_tokens} out tokens,{' '}
        {usd(n.usage.cost_usd)}
      </dd>
      <dt>created</dt>
      <dd>
        <Time at={n.created_at} />
      </dd>
      <dt>finished</dt>
      <dd>
        <Time at={n.finished_at} />
      </dd>
      <dt>task</dt>
      <dd>
        <pre class="text">{n.task}</pre>
      </dd>
    </dl>
  );
}

/** The first `pages` pages of the node's events, oldest first. */
async function eventPages(id: string, pages: number) {
  const events: SvcEvent[] = [];
  let after = 0;
  let hasMore = false;
  for (let i = 0; i < pages; i++) {
    const page = await api<Page<SvcEvent>>(
      'GET',
      `/v1/nodes/${encodeURIComponent(id)}/events?limit=${EVENTS_PAGE}&after=${after}`,
    );
    events.push(...page.data);
    hasMore = page.has_more;
    if (!hasMore || page.next_cursor === null) break;
    after = Number(page.next_cursor);
  }
  return { events, hasMore };
}
