import { allPages } from '../api.ts';
import { Loaded, Time } from '../parts.tsx';
import type { Plugin } from '../types.ts';
import { useLoad } from '../use-load.ts';

/** The installed plugins (`GET /v1/plugins`) and the commands each gives nodes as tools. */
export function Plugins({ version }: { version: number }) {
  const load = useLoad(() => allPages<Plugin>('/v1/plugins'), [version]);
  return (
    <section aria-labelledby="plugins-title">
      <h2 id="plugins-title">Plugins</h2>
      <Loaded load={load}>
        {(plugins) =>
          plugins.length === 0 ? (
            <p>
              No plugins installed. Install one with <code>svc pkg plugin install</code>.
            </p>
          ) : (
            plugins.map((p) => (
              <article key={p.name} aria-labelledby={`plugin-${p.name}`} class="plugin">
                <h3 id={`plugin-${p.name}`}>{p.name}</h3>
                <p>{p.description}</p>
                <dl class="fields">
                  <dt>endpoint</dt>
                  <dd>
                    <code>{p.endpoint}</code>
                  </dd>
                  <dt>version</dt>
                  <dd>{p.major === null ? 'unversioned' : `v${p.major}`}</dd>
                  <dt>auth</dt>
                  <dd>{p.auth}</dd>
                  <dt>installed</dt>
                  <dd>
                    <Time at={p.installed_at} />
                  </dd>
                </dl>
                <table>
                  <caption>Commands</caption>
                  <thead>
                    <tr>
                      <th scope="col">tool</th>
                      <th scope="col">scope</th>
                      <th scope="col">description</th>
                    </tr>
                  </thead>
                  <tbody>
                    {p.commands.map((c) => (
                      <tr key={`${c.group}/${c.name}`}>
                        <td>
                          <code>{`${p.name}_${c.group}_${c.name}`}</code>
                        </td>
                        <td>
                          <code>{c.scope}</code>
                        </td>
                        <td>{c.description}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </article>
            ))
          )
        }
      </Loaded>
    </section>
  );
}
