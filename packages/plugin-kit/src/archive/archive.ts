/**
 * The archive a GET serves: `plugin.json` in an uncompressed ustar, built once per (major, mount)
 * and kept in a bounded cache since the mount comes from the request path.
 */
import { strongEtag } from '../http/etag.ts';
import { Lru } from '../lru.ts';
import type { AuthMode, PluginDefinition } from '../types.ts';
import { buildManifest } from './manifest.ts';
import { writeTar } from './tar.ts';

export interface Archive {
  bytes: Uint8Array<ArrayBuffer>;
  etag: string;
}

const CACHE_SIZE = 64;

export function createArchiveCache(auth: AuthMode, versioned: boolean) {
  const cache = new Lru<string, Promise<Archive>>(CACHE_SIZE);
  return (def: PluginDefinition, mount: string): Promise<Archive> => {
    const key = `${def.version ?? ''} ${mount}`;
    let archive = cache.get(key);
    if (archive === undefined) {
      archive = build(def, mount, auth, versioned);
      cache.set(key, archive);
    }
    return archive;
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
  return { bytes, etag: await strongEtag(bytes) };
}
