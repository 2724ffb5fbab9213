/**
 * Who sees which memory documents (SPEC "Scope vocabulary", rules 2 and 3; DESIGN §5). What a
 * caller sees of a space is a view: `all`, or `public` (the person's space without
 * `svc:memory:manage:user`). A space the caller may not read at all is refused before any
 * document is looked at, so the refusal says nothing about documents; inside a space, a document
 * the view hides answers exactly as a missing one (404), its existence being private too.
 *
 * Kept here, not in the route table's visibility rules (`access/visibility.ts`): those decide by
 * who owns a row (app, node, tree), while memory decides by the space's scopes and by each
 * document's privacy level, which no row-owner rule can express.
 */
import {
  formatMemorySpace,
  listCovers,
  type MemorySpace,
  type Scope,
  tryParseScope,
} from '@svc/protocol';
import { ApiError } from '../errors.ts';
import type { Principal } from '../ports.ts';
import type { Store } from '../store/index.ts';
import type { MemoryPrivacy } from './store.ts';

/** `all` levels, or only `public` ones (the person's space without the manage scope). */
export type View = 'all' | 'public';

export const MEMORY_MANAGE: Scope = 'svc:memory:manage:user';

/** What the views read: a node space's node, to tell whether an app sees it. */
export interface ViewDeps {
  store: Pick<Store, 'nodes'>;
}

/** Who may read a node's space besides the owner: the node itself and the app it belongs to. */
function checkNodeSpace({ store }: ViewDeps, principal: Principal, nodeId: string): void {
  if (principal.kind === 'node' && principal.nodeId === nodeId) return;
  // The app sees the node as `nodes.retrieve` does (its own, and any node of its trees).
  if (principal.kind === 'app' && principal.appId !== null) {
    if (store.nodes.visible(nodeId, { kind: 'app', appId: principal.appId }) !== undefined) return;
  }
  throw new ApiError(
    'forbidden',
    `the documents of node:${nodeId} are that node's, its app's and the owner's only`,
    { field: 'space' },
  );
}

/** An app's own space (any profile of it) needs no scope, for the app and for its nodes. */
function ownApp(principal: Principal, space: MemorySpace & { owner: 'app' }): boolean {
  return principal.appId !== null && principal.appId === space.appId;
}

function requireScope(principal: Principal, wanted: Scope): void {
  if (listCovers(principal.scopes, wanted)) return;
  throw new ApiError('scope_missing', `this token's scopes do not cover '${wanted}'`, {
    field: wanted,
    received: principal.scopes ?? [],
  });
}

/**
 * The view a caller has of `space` for `access`. A writer may only create, change or delete
 * documents it can see, so both accesses share one rule and differ only in the scope asked.
 * @param path the document, or the directory a list covers (`''`: the whole space)
 */
function viewFor(
  access: 'read' | 'rw',
  deps: ViewDeps,
  principal: Principal,
  space: MemorySpace,
  path: string,
): View {
  if (principal.kind === 'owner') return 'all';
  switch (space.owner) {
    case 'user':
      // Rule 3 frees `client.memory` (apps) of scopes for reading; a node is an agent the person
      // did not grant the documents to unless its scopes say so (rule 2 exempts only its own
      // space). Writing always takes the scope.
      if (access === 'rw' || principal.kind === 'node') {
        requireScope(principal, userScope(access, path));
      }
      return listCovers(principal.scopes, MEMORY_MANAGE) ? 'all' : 'public';
    case 'app':
      if (!ownApp(principal, space)) {
        requireScope(principal, `svc:memory:${access}:${formatMemorySpace(space)}`);
      }
      return 'all';
    case 'node':
      checkNodeSpace(deps, principal, space.nodeId);
      return 'all';
  }
}

/** The view a reader has (`get`, `list`). */
export function readView(deps: ViewDeps, principal: Principal, space: MemorySpace, path: string) {
  return viewFor('read', deps, principal, space, path);
}

/** The view a writer has (`write`, `delete`): it may only change documents it can see. */
export function writeView(deps: ViewDeps, principal: Principal, space: MemorySpace, path: string) {
  return viewFor('rw', deps, principal, space, path);
}

export function visible(view: View, row: { privacy: MemoryPrivacy }): boolean {
  return view === 'all' || row.privacy === 'public';
}

/**
 * `svc:memory:<access>:user:/<p>` for the longest prefix `p` of `path` a scope can name (a
 * scope's path holds no whitespace or comma), so any scope covering the whole path covers it too;
 * the whole space when not even the first segment fits.
 */
function userScope(access: 'read' | 'rw', path: string): Scope {
  const segments = path.split('/').filter((segment) => segment !== '');
  for (let n = segments.length; n > 0; n--) {
    const scope = `svc:memory:${access}:user:/${segments.slice(0, n).join('/')}`;
    if (tryParseScope(scope).ok) return scope;
  }
  return `svc:memory:${access}:user`;
}
