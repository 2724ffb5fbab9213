import { useState } from 'preact/hooks';
import { allPages, api, errorText } from '../api.ts';
import { Loaded, StateBadge, Time } from '../parts.tsx';
import { href } from '../router.ts';
import type { Cron } from '../types.ts';
import { useLoad } from '../use-load.ts';

/** Every cron with its schedule and last fire; run now, pause, resume. */
export function Crons({ version }: { version: number }) {
  const [local, setLocal] = useState(0);
  const [status, setStatus] = useState<{ error: boolean; text: string; node?: string } | null>(
    null,
  );
  const load = useLoad(() => allPages<Cron>('/v1/crons'), [version, local]);

  async function act(cron: Cron, action: 'run' | 'pause' | 'resume') {
    try {
      const answer = await api<{ node?: { id: string } }>(
        'POST',
        `/v1/crons/${encodeURIComponent(cron.id)}/${action}`,
        {},
      );
      const node = answer.node?.id;
      const done = { run: 'fired', pause: 'paused', resume: 'resumed' }[action];
      setStatus({
        error: false,
        text: `${cron.name} ${done}.`,
        ...(node !== undefined && { node }),
      });
      setLocal(local + 1);
    } catch (error) {
      setStatus({ error: true, text: errorText(error) });
    }
  }

  return (
    <section aria-labelledby="crons-title">
      <h2 id="crons-title">Crons</h2>
      {status !== null && (
        <p role={status.error ? 'alert' : 'status'} class={status.error ? 'error' : 'ok'}>
          {status.text} {status.node !== undefined && <a href={href.node(status.node)}>Its node</a>}
        </p>
      )}
      <Loaded load={load}>
        {(crons) =>
          crons.length === 0 ? (
            <p>
              No crons. Create one with <code>svc cron create</code>.
            </p>
          ) : (
            <table>
              <thead>
                <tr>
                  <th scope="col">name</th>
                  <th scope="col">schedule</th>
                  <th scope="col">state</th>
                  <th scope="col">next run</th>
                  <th scope="col">last run</th>
                  <th scope="col">fires</th>
                  <th scope="col">actions</th>
                </tr>
              </thead>
              <tbody>
                {crons.map((cron) => (
                  <tr key={cron.id} data-cron-id={cron.id}>
                    <th scope="row">{cron.name}</th>
                    <td>
                      <code>{cron.schedule}</code> <span class="muted">{cron.timezone}</span>
                    </td>
                    <td>
                      <StateBadge state={cron.state} />
                    </td>
                    <td>
                      <Time at={cron.next_run_at} />
                    </td>
                    <td>
                      <Time at={cron.last_run_at} />
                      {cron.last_node_id !== null && (
                        <>
                          {' '}
                          <a href={href.node(cron.last_node_id)}>node</a>
                        </>
                      )}
                    </td>
                    <td>{cron.fire_count}</td>
                    <td class="actions">
                      <button
                        type="button"
                        onClick={() => act(cron, 'run')}
                        aria-label={`Run ${cron.name} now`}
                      >
                        Run now
                      </button>
                      {cron.state === 'active' ? (
                        <button
                          type="button"
                          onClick={() => act(cron, 'pause')}
                          aria-label={`Pause ${cron.name}`}
                        >
                          Pause
                        </button>
                      ) : (
                        <button
                          type="button"
                          onClick={() => act(cron, 'resume')}
                          aria-label={`Resume ${cron.name}`}
                        >
                          Resume
                        </button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </Loaded>
    </section>
  );
}
