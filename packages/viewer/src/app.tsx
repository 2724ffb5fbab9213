import { useEffect, useState } from 'preact/hooks';
import { api, whenUnauthorized } from './api.ts';
import { useLiveEvents } from './live.ts';
import { href, type Route, useRoute } from './router.ts';
import { forgetKey, onNewKey, pageKey } from './session.ts';
import { useLoad } from './use-load.ts';
import { Canvas } from './views/canvas.tsx';
import { Crons } from './views/crons.tsx';
import { History, Inbox } from './views/inbox.tsx';
import { NewNode } from './views/new-node.tsx';
import { NodeView } from './views/node.tsx';
import { Plugins } from './views/plugins.tsx';
import { Usage } from './views/usage.tsx';

const NAV: readonly { label: string; href: string; views: Route['view'][] }[] = [
  { label: 'Canvas', href: href.canvas, views: ['canvas', 'node', 'new'] },
  { label: 'Inbox', href: href.inbox, views: ['inbox', 'history'] },
  { label: 'Usage', href: href.usage, views: ['usage'] },
  { label: 'Crons', href: href.crons, views: ['crons'] },
  { label: 'Plugins', href: href.plugins, views: ['plugins'] },
];

const SIGNED_OUT = {
  none: 'Not logged in.',
  ended: 'Your viewer session ended (expired or revoked).',
  out: 'You logged out.',
} as const;

export function App() {
  const route = useRoute();
  // No page key at all: this browser never logged in here (or its storage was cleared).
  const [session, setSession] = useState<'in' | 'ended' | 'out' | 'none'>(() =>
    pageKey() === null ? 'none' : 'in',
  );
  useEffect(() => whenUnauthorized(() => setSession('ended')), []);
  // A login in another tab (its new cookie is this tab's too) brings this one back.
  useEffect(() => onNewKey(() => setSession('in')), []);
  if (session !== 'in') {
    return (
      <main class="signed-out">
        <h1>svc viewer</h1>
        <p>
          {SIGNED_OUT[session]} Run <code>svc sys connect --open</code> for a new login link.
        </p>
      </main>
    );
  }
  return <Shell route={route} onLogout={() => setSession('out')} />;
}

function Shell({ route, onLogout }: { route: Route; onLogout: () => void }) {
  const live = useLiveEvents();
  async function logout() {
    await api('POST', '/v1/viewer/logout', {}).catch(() => {});
    forgetKey();
    onLogout();
  }
  return (
    <>
      <header class="top">
        <h1>svc</h1>
        <nav aria-label="Main">
          {NAV.map((item) => (
            <a
              key={item.href}
              href={item.href}
              aria-current={item.views.includes(route.view) ? 'page' : undefined}
            >
              {item.label}
              {item.href === href.inbox && <OpenCount version={live.inbox} />}
            </a>
          ))}
        </nav>
        <p class="live" role="status" data-connected={String(live.connected)}>
          {live.connected ? 'live' : 'connecting…'}
        </p>
        <button type="button" onClick={logout}>
          Log out
        </button>
      </header>
      <main>
        <View route={route} live={live} />
      </main>
    </>
  );
}

/** The open tickets beside "Inbox" in the navigation, live: what waits for the person. */
function OpenCount({ version }: { version: number }) {
  const load = useLoad(
    () => api<{ by_kind: { ticket: number } }>('GET', '/v1/canvas/attention/counts'),
    [version],
  );
  const open = load.state === 'ready' ? load.value.by_kind.ticket : 0;
  if (open === 0) return null;
  return (
    <span class="count" data-open={open}>
      {' '}
      {open}
      <span class="visually-hidden"> open</span>
    </span>
  );
}

function View({ route, live }: { route: Route; live: ReturnType<typeof useLiveEvents> }) {
  switch (route.view) {
    case 'canvas':
      return <Canvas version={live.nodes} inbox={live.inbox} />;
    case 'new':
      return <NewNode parent={route.parent} />;
    case 'usage':
      return <Usage version={live.nodes} />;
    case 'node':
      // A key per node: nothing of one node's page (a form, a status line) carries to the next.
      return <NodeView key={route.id} id={route.id} version={live.nodes} />;
    case 'inbox':
      return <Inbox ticket={route.ticket} version={live.inbox} />;
    case 'history':
      return <History version={live.inbox} />;
    case 'crons':
      return <Crons version={live.crons} />;
    case 'plugins':
      return <Plugins version={live.plugins} />;
    case 'missing':
      return (
        <section>
          <h2>Not found</h2>
          <p>
            Nothing at <code>{route.hash}</code>. <a href={href.canvas}>Back to the canvas</a>.
          </p>
        </section>
      );
  }
}
