import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { tokens, usd } from '../format.ts';
import { Loaded } from '../parts.tsx';
import type { HistoryStats } from '../types.ts';
import { useLoad } from '../use-load.ts';

type Stats = HistoryStats;
type Totals = Stats['totals'];

const GROUPS = [
  ['day', 'per day'],
  ['profile', 'per profile'],
  ['model', 'per model'],
] as const;
const SINCE = [
  ['7', 'last 7 days'],
  ['30', 'last 30 days'],
  ['all', 'all time'],
] as const;
const METRICS = {
  cost: { label: 'cost', of: (t: Totals) => t.cost_usd, show: usd },
  tokens: { label: 'tokens', of: (t: Totals) => t.input_tokens + t.output_tokens, show: tokens },
} as const;

/** Tokens and cost per day, profile or model (`canvas.history.stats`), as a bar chart and a table. */
export function Usage({ version }: { version: number }) {
  const [group, setGroup] = useState<Stats['group_by']>('day');
  const [since, setSince] = useState<(typeof SINCE)[number][0]>('30');
  const [metric, setMetric] = useState<keyof typeof METRICS>('cost');
  const load = useLoad(() => {
    const query = new URLSearchParams({ group_by: group });
    if (since !== 'all') {
      const from = new Date(Date.now() - Number(since) * 86_400_000);
      from.setUTCHours(0, 0, 0, 0);
      query.set('since', from.toISOString());
    }
    return api<Stats>('GET', `/v1/canvas/history/stats?${query}`);
  }, [group, since, version]);
  const m = METRICS[metric];
  return (
    <section aria-labelledby="usage-title">
      <h2 id="usage-title">Usage</h2>
      <form class="filters" aria-label="Usage view" onSubmit={(e) => e.preventDefault()}>
        <Choice name="group" label="Group" options={GROUPS} value={group} onChange={setGroup} />
        <Choice name="since" label="Since" options={SINCE} value={since} onChange={setSince} />
        <Choice
          name="metric"
          label="Show"
          options={[
            ['cost', 'cost'],
            ['tokens', 'tokens'],
          ]}
          value={metric}
          onChange={setMetric}
        />
      </form>
      <Loaded load={load}>
        {(stats) => (
          <>
            <p class="usage-totals">
              <strong>{usd(stats.totals.cost_usd)}</strong> ·{' '}
              <strong>{tokens(stats.totals.input_tokens + stats.totals.output_tokens)}</strong>{' '}
              tokens ({tokens(stats.totals.input_tokens)} in, {tokens(stats.totals.output_tokens)}{' '}
              out) · {stats.totals.turns} turns · {stats.totals.nodes} nodes
            </p>
            {stats.groups.length === 0 ? (
              <p>No turns in this span.</p>
            ) : (
              <>
                <Bars groups={stats.groups} of={m.of} show={m.show} label={m.label} />
                <table>
                  <caption>{GROUPS.find(([g]) => g === group)?.[1]}</caption>
                  <thead>
                    <tr>
                      <th scope="col">{group}</th>
                      <th scope="col">cost</th>
                      <th scope="col">input tokens</th>
                      <th scope="col">output tokens</th>
                      <th scope="col">turns</th>
                      <th scope="col">nodes</th>
                    </tr>
                  </thead>
                  <tbody>
                    {stats.groups.map((g) => (
                      <tr key={g.key}>
                        <th scope="row">{g.key}</th>
                        <td>{usd(g.cost_usd)}</td>
                        <td>{g.input_tokens}</td>
                        <td>{g.output_tokens}</td>
                        <td>{g.turns}</td>
                        <td>{g.nodes}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </>
            )}
          </>
        )}
      </Loaded>
    </section>
  );
}

function Choice<T extends string>({
  name,
  label,
  options,
  value,
  onChange,
}: {
  name: string;
  label: string;
  options: readonly (readonly [T, string])[];
  value: T;
  onChange: (value: T) => void;
}) {
  return (
    <fieldset>
      <legend>{label}</legend>
      {options.map(([key, text]) => (
        <label key={key} class="choice">
          <input
            type="radio"
            name={`usage-${name}`}
            checked={value === key}
            onChange={() => onChange(key)}
          />
          {text}
        </label>
      ))}
    </fieldset>
  );
}

const BAR_H = 22;
const LABEL_W = 150;
const CHART_W = 640;

/**
 * Horizontal bars, one per group, longest = the largest; SVG attributes rather than inline
 * styles, which the viewer's CSP refuses. The table below carries the same numbers for a reader.
 */
function Bars({
  groups,
  of,
  show,
  label,
}: {
  groups: Stats['groups'];
  of: (t: Totals) => number;
  show: (n: number) => string;
  label: string;
}) {
  const max = Math.max(...groups.map(of), 0);
  const room = CHART_W - LABEL_W - 80;
  return (
    <svg
      class="bars"
      viewBox={`0 0 ${CHART_W} ${groups.length * BAR_H + 4}`}
      role="img"
      aria-label={`${label} by group`}
    >
      {groups.map((g, i) => {
        const w = max === 0 ? 0 : Math.max(1, (of(g) / max) * room);
        const y = i * BAR_H + 2;
        return (
          <g key={g.key}>
            <text x={LABEL_W - 6} y={y + BAR_H * 0.68} text-anchor="end" class="bar-label">
              {g.key.length > 22 ? `${g.key.slice(0, 21)}…` : g.key}
            </text>
            <rect x={LABEL_W} y={y + 3} width={w} height={BAR_H - 6} rx={3} class="bar" />
            <text x={LABEL_W + w + 6} y={y + BAR_H * 0.68} class="bar-value">
              {show(of(g))}
            </text>
          </g>
        );
      })}
    </svg>
  );
}
