/**
 * Who sees which rows: the one place the visibility rules of the protocol's route table
 * (`RouteDef.visibility`) are turned into what a caller sees. The request path makes one sight
 * per request from its route's rule (`c.sight()`); services test rows against it (`sees`) and
 * stores filter by it (`sightFilter`), so a rule changes in the table and here, nowhere else.
 */
import type { Visibility } from '@svc/protocol';
import type { Principal } from '../ports.ts';
import { appsReadable } from './scopes.ts';

/** What one caller sees under one rule. A row is seen when any of its parts matches. */
export interface Sight {
  /** The owner: every row. */
  readonly all: boolean;
  /** The apps whose rows it sees. */
  readonly apps: readonly string[];
  /** The rows no app owns (`app_id` null): the owner's. */
  readonly ownerRows: boolean;
  /** A node token's own node: the rows made for it (human requests). */
  readonly nodeId: string | null;
  /** A node token's tree: the nodes under its root. */
  readonly rootId: string | null;
}

/** The columns a row is seen by; a store names those its table has. */
export interface SightRow {
  app_id?: string | null;
  node_id?: string | null;
  root_id?: string | null;
}

const EVERYTHING: Sight = Object.freeze({
  all: true,
  apps: [],
  ownerRows: true,
  nodeId: null,
  rootId: null,
});
const NOTHING: Sight = Object.freeze({
  all: false,
  apps: [],
  ownerRows: false,
  nodeId: null,
  rootId: null,
});

/**
 * @param rootOf a node's tree root, for a node token under a `tree` rule (`null`: the node is
 * gone, and its token sees nothing)
 */
export function sightOf(
  rule: Visibility,
  principal: Principal,
  rootOf: (nodeId: string) => string | null,
): Sight {
  if (principal.kind === 'owner') return EVERYTHING;
  if (principal.kind === 'publish') return NOTHING;
  const own = principal.appId === null ? [] : [principal.appId];
  const node = principal.kind === 'node' ? principal.nodeId : null;
  switch (rule) {
    case 'own-app':
      return principal.kind === 'app' ? { ...NOTHING, apps: own } : NOTHING;
    case 'own-app-or-node':
      return principal.kind === 'app' ? { ...NOTHING, apps: own } : { ...NOTHING, nodeId: node };
    case 'with-owner':
      return { ...NOTHING, apps: own, ownerRows: true };
    case 'tree':
    case 'tree-read': {
      if (node !== null) return { ...NOTHING, rootId: rootOf(node) };
      if (principal.kind !== 'app') return NOTHING;
      const read =
        rule === 'tree-read' ? appsReadable(principal.scopes ?? [], 'conversations') : [];
      return { ...NOTHING, apps: [...new Set([...own, ...read])] };
    }
    case 'objects-read':
      return {
        ...NOTHING,
        apps: [...new Set([...own, ...appsReadable(principal.scopes ?? [], 'objects')])],
      };
  }
}

/** Whether `sight` sees `row`. */
export function sees(sight: Sight, row: SightRow): boolean {
  if (sight.all) return true;
  const app = row.app_id ?? null;
  if (app === null ? sight.ownerRows : sight.apps.includes(app)) return true;
  if (sight.nodeId !== null && row.node_id === sight.nodeId) return true;
  return sight.rootId !== null && row.root_id === sight.rootId;
}

/**
 * `sees` as an SQL condition over a table's columns (named by the store, never by a caller),
 * with its parameters in order.
 */
export function sightFilter(
  sight: Sight,
  columns: { app: string; node?: string; root?: string },
): { sql: string; params: string[] } {
  if (sight.all) return { sql: '1', params: [] };
  const parts: string[] = [];
  const params: string[] = [];
  if (sight.apps.length > 0) {
    parts.push(`${columns.app} IN (${sight.apps.map(() => '?').join(', ')})`);
    params.push(...sight.apps);
  }
  if (sight.ownerRows) parts.push(`${columns.app} IS NULL`);
  if (sight.nodeId !== null && columns.node !== undefined) {
    parts.push(`${columns.node} = ?`);
    params.push(sight.nodeId);
  }
  if (sight.rootId !== null && columns.root !== undefined) {
    parts.push(`${columns.root} = ?`);
    params.push(sight.rootId);
  }
  return { sql: parts.length === 0 ? '0' : `(${parts.join(' OR ')})`, params };
}
