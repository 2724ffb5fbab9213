/**
 * What of the person's files a confined command sees: an ordered list of layers, applied as
 * bubblewrap applies its mounts (shallower paths first, so a deeper layer sits on top). The same
 * list answers the node's file tools (`viewAllows`), so `read_file` sees exactly what `cat` does
 * (issue 28, "the node's file tools keep exactly the same view as its shell").
 */
import { isWithin, type Scope, tryParseScope } from '@svc/protocol';

export type Layer =
  /** A host directory (or file) bound at the same path, writable or read-only. */
  | { path: string; kind: 'rw' | 'ro' }
  /** Hidden: an empty directory (or nothing) stands there, whatever a shallower layer binds. */
  | { path: string; kind: 'hide' };

/** How deep a path is: `/` is 0, `/a` 1, `/a/b` 2. */
function depth(path: string): number {
  return path === '/' ? 0 : path.split('/').length - 1;
}

/**
 * The layers in the order they are mounted: by depth, and at one path a hide after a bind, so a
 * scope that names the home itself still leaves it hidden. Duplicates keep the last one given.
 */
export function orderLayers(layers: readonly Layer[]): Layer[] {
  const byPath = new Map<string, Layer>();
  for (const layer of layers) {
    const held = byPath.get(layer.path);
    // At one path a hide wins over any bind, and rw over ro (two scopes on one directory).
    if (held?.kind === 'hide') continue;
    if (held?.kind === 'rw' && layer.kind === 'ro') continue;
    byPath.set(layer.path, layer);
  }
  return [...byPath.values()].sort((a, b) => depth(a.path) - depth(b.path));
}

/**
 * Whether `real` (a realpath) is reached for `access` in `layers` (ordered): the deepest layer
 * holding it decides, as the deepest mount is what a process sees there.
 */
export function viewAllows(layers: readonly Layer[], real: string, access: 'read' | 'rw'): boolean {
  let decider: Layer | undefined;
  for (const layer of layers) if (isWithin(layer.path, real)) decider = layer;
  if (decider === undefined || decider.kind === 'hide') return false;
  return access === 'read' || decider.kind === 'rw';
}

/**
 * The binds a scope list grants: each `svc:files:{read,rw}:user:<dir>` at its own path, and each
 * app form `svc:files:{read,rw}:app:<id>:<dir>` of the caller's own app (SPEC: "host files a run
 * may mount"); another app's form binds nothing.
 */
export function scopeLayers(scopes: readonly Scope[], appId: string | null = null): Layer[] {
  const layers: Layer[] = [];
  for (const scope of scopes) {
    const parsed = tryParseScope(scope);
    if (!parsed.ok || parsed.scope.kind !== 'files') continue;
    if (parsed.scope.owner === 'app' && parsed.scope.appId !== appId) continue;
    layers.push({ path: parsed.scope.dir, kind: parsed.scope.access === 'rw' ? 'rw' : 'ro' });
  }
  return layers;
}
