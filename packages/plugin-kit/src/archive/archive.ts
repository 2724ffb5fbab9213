/**
 * The archive a GET serves: `plugin.json` in an uncompressed ustar, built once per (major, mount)
 * and kept in a bounded cache since the mount comes from the request path.
 */

import { BoundedCache } from '../bounded-cache.ts';
import { strongEtag } from '../http/etag.ts';
import type { AuthMode, PluginDefinition } from '../types.ts';
import { buildManifest } from './manifest.ts';
import { writeTar } from './tar.ts';

export interface Archive {
  bytes: Uint8Array<ArrayBuffer>;
  /** `bytes.byteLength` as the `Content-Length` a HEAD answer reports too. */
  length: string;
  etag: string;
}

const CACHE_SIZE = 64;

/** Returns the archive itself once built, so a request for it needs no promise. */
export function createArchiveCache(auth: AuthMode, versioned: boolean) {
  const cache = new BoundedCache<string, Archive | Promise<Archive>>(CACHE_SIZE);
  return (def: PluginDefinition, mount: string): Archive | Promise<Archive> => {
    const key = `${def.version ?? ''} ${mount}`;
    const cached = cache.get(key);
    if (cached !== undefined) return cached;
    const building = build(def, mount, auth, versioned).then((archive) => {
      // Unless evicted meanwhile, the entry becomes the archive itself.
      if (cache.get(key) === building) cache.set(key, archive);
      return archive;
    });
    cache.set(key, building);
    return building;
  };
}

async function build(
  def: PluginDefinition,
  mount: string,
  auth: AuthMode,
  versioned: boolean,
): Promise<Archive> {
  const manifest = buildManifest(def, mount, auth, versioned);
  const json = new TextEncoder().encode(`${JSON.stringify(manifest, null, 2)}\n`);
  const bytes = writeTar([{ name: 'plugin.json', data: json }]);
  const etag = await strongEtag(bytes);
  return { bytes, length: String(bytes.byteLength), etag };
}
