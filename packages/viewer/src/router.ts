import { useEffect, useState } from 'preact/hooks';

/** The page the hash names: `#/nodes/nd_…` → ['nodes', 'nd_…']; none → the canvas. */
export type Route =
  | { view: 'canvas' }
  | { view: 'node'; id: string }
  | { view: 'new'; parent: string | null }
  | { view: 'usage' }
  | { view: 'inbox'; ticket: string | null }
  | { view: 'history' }
  | { view: 'crons' }
  | { view: 'plugins' }
  | { view: 'missing'; hash: string };

export function parseHash(hash: string): Route {
  let parts: string[];
  try {
    parts = hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
  } catch {
    return { view: 'missing', hash }; // a broken percent-escape names no page
  }
  const [first, second] = parts;
  if (first === undefined || first === 'canvas') return { view: 'canvas' };
  if (first === 'new') return { view: 'new', parent: second ?? null };
  if (first === 'usage') return { view: 'usage' };
  if (first === 'nodes' && second !== undefined) return { view: 'node', id: second };
  if (first === 'inbox' && second === 'history') return { view: 'history' };
  if (first === 'inbox') return { view: 'inbox', ticket: second ?? null };
  if (first === 'crons') return { view: 'crons' };
  if (first === 'plugins') return { view: 'plugins' };
  return { view: 'missing', hash };
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseHash(location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseHash(location.hash));
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

export const href = {
  canvas: '#/',
  node: (id: string) => `#/nodes/${encodeURIComponent(id)}`,
  newNode: '#/new',
  newChild: (parent: string) => `#/new/${encodeURIComponent(parent)}`,
  usage: '#/usage',
  inbox: '#/inbox',
  ticket: (id: string) => `#/inbox/${encodeURIComponent(id)}`,
  history: '#/inbox/history',
  crons: '#/crons',
  plugins: '#/plugins',
};
