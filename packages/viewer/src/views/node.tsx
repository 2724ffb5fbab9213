import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { Json, Loaded, StateBadge, Time } from '../parts.tsx';
import { href } from '../router.ts';
import type { Page, SvcEvent, SvcNode, Turn } from '../types.ts';
import { useLoad } from '../use-load.ts';

const EVENTS_PAGE = 100;

/** A node's fields, outcome, transcript (its `node.turn` events) and events, live. */
export function NodeView({ id, version }: { id: string; version: number }) {
  const [pages, setPages] = useState(1);
  const node = useLoad(
    () => api<SvcNode>('GET', `/v1/nodes/${encodeURIComponent(id)}`),
    [id, version],
  );
  const events = useLoad(() => eventPages(id, pages), [id, version, pages]);
  return (
    <section aria-labelledby="node-title">
      <p>
        <a href={href.canvas}>← Canvas</a>
      </p>
      <Loaded load={node}>
        {(n) => (
          <>
            <h2 id="node-title">
              {n.title || n.id} <StateBadge state={n.state} />
            </h2>
            <NodeFields node={n} />
            {n.outcome !== null && (
              <section aria-labelledby="outcome-title">
                <h3 id="outcome-title">Outcome</h3>
                <dl class="fields">
                  <dt>state</dt>
                  <dd>{n.outcome.state}</dd>
                  <dt>summary</dt>
                  <dd>{n.outcome.summary ?? '—'}</dd>
                  {n.outcome.error !== null && (
                    <>
                      <dt>error</dt>
                      <dd>
                        {n.outcome.error.code}: {n.outcome.error.message}
                      </dd>
                    </>
                  )}
                </dl>
                {n.outcome.result !== null && <Json value={n.outcome.result} />}
              </section>
            )}
          </>
        )}
      </Loaded>
      {/* The events of a node that failed to load would only repeat its error. */}
      {node.state !== 'error' && (
        <Loaded load={events}>
          {({ events: list, hasMore }) => (
            <>
              <Transcript events={list} />
              <section aria-labelledby="events-title">
                <h3 id="events-title">Events</h3>
                <table>
                  <thead>
                    <tr>
                      <th scope="col">seq</th>
                      <th scope="col">kind</th>
                      <th scope="col">at</th>
                      <th scope="col">payload</th>
                    </tr>
                  </thead>
                  <tbody>
                    {list.map((e) => (
                      <tr key={e.seq}>
                        <td>{e.seq}</td>
                        <td>{e.kind}</td>
                        <td>
                          <Time at={e.created_at} />
                        </td>
                        <td>
                          <details>
                            <summary>{summarize(e)}</summary>
                            <Json value={e.payload} />
                          </details>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
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
      <dt>usage</dt>
      <dd>
        {n.usage.turns} turns, {n.usage.input_tokens} in / {n.usage.output_tokens} out tokens, $
        {n.usage.cost_usd.toFixed(4)}
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

function Transcript({ events }: { events: readonly SvcEvent[] }) {
  const turns = events
    .filter((e) => e.kind === 'node.turn')
    .map((e) => e.payload.turn as Turn | undefined)
    .filter((t): t is Turn => t !== undefined);
  if (turns.length === 0) return null;
  return (
    <section aria-labelledby="transcript-title">
      <h3 id="transcript-title">Transcript</h3>
      <ol class="transcript">
        {turns.map((turn) => (
          <li key={turn.index}>
            <h4>Turn {turn.index}</h4>
            {turn.input.map((m, i) => (
              <blockquote key={i} class="input">
                <pre class="text">{m.text}</pre>
              </blockquote>
            ))}
            {turn.text !== '' && <pre class="text">{turn.text}</pre>}
            {turn.tool_calls.map((call, i) => (
              <details key={i}>
                <summary>
                  tool call <code>{call.name}</code>
                </summary>
                <Json value={call.input} />
              </details>
            ))}
          </li>
        ))}
      </ol>
    </section>
  );
}

function summarize(e: SvcEvent): string {
  const p = e.payload;
  if (e.kind === 'node.state')
    return `${String(p.from ?? '∅')} → ${String(p.to)} (${String(p.action)})`;
  if (e.kind === 'node.tool') {
    const call = p.tool_call as { name?: string; status?: string } | undefined;
    return `${call?.name ?? 'tool'} ${call?.status ?? ''}`.trim();
  }
  return 'payload';
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
