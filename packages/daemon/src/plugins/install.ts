/**
 * The plugin registry (DESIGN §5, "Plugin install"). Installing reads the plugin's archive from
 * its endpoint once: `/versions` first, then the latest major's archive (or the endpoint's own
 * archive when it serves no versions). It refuses compressed bytes, a name other than the one
 * asked for, and any command path outside the endpoint's path, which is how a handler that does
 * not know its mount shows (SPEC, "Installing a plugin"). It keeps only the endpoint's origin as
 * the transport, and each command's full path.
 */

import type { Plugin, pluginInstallBodySchema } from '@svc/protocol';
import type { z } from 'zod';
import { ApiError } from '../errors.ts';
import type { EventLog } from '../events/log.ts';
import type { Store } from '../store/index.ts';
import { nestsTooDeep } from '../store/json.ts';
import { get, versionsOf } from './fetch-archive.ts';
import {
  checkManifest,
  checkPaths,
  manifestOf,
  unversionedArchiveUrl,
  VERSION_SEGMENT,
} from './manifest.ts';
import { unusable } from './refusal.ts';
import { summary } from './summary.ts';

export type InstallBody = z.output<typeof pluginInstallBodySchema>;

export interface PluginDeps {
  store: Pick<Store, 'db' | 'plugins'>;
  events: EventLog;
}

/** `POST /v1/plugins`: reads the archive, checks it, and installs or updates the plugin. */
export async function installPlugin(
  { store, events }: PluginDeps,
  body: InstallBody,
): Promise<Plugin> {
  const url = new URL(body.endpoint);
  // The mount path, without the trailing slash a URL may carry (`https://x/plugins/`).
  const mount = url.pathname.replace(/\/+$/, '');
  const endpoint = `${url.origin}${mount}`;
  const versions = await versionsOf(endpoint, body.token);
  const segments = mount.split('/');
  const versionAt = segments.findIndex((segment) => VERSION_SEGMENT.test(segment));
  const versionSegment = versionAt < 0 ? undefined : segments[versionAt];
  // SPEC, "Versioning": the endpoint is passed without any `/v<N>` segment. Taken as a
  // mount, one would be declared again under each major (`/plugins/v1/v2/acme/...`).
  const withVersion = (serves: string, latest?: number) => {
    const without = `${url.origin}${segments.slice(0, versionAt).join('/')}`;
    return new ApiError(
      'validation_failed',
      `${body.endpoint} holds the segment /${versionSegment}, but ${body.name} ${serves}: pass the endpoint without any /v<N> segment, e.g. ${without}; the latest major${latest === undefined ? '' : `, ${latest},`} is installed`,
      { field: 'endpoint', received: body.endpoint },
    );
  };
  if (versions !== null && versionSegment !== undefined) {
    throw withVersion(`serves majors (${versions.supported.join(', ')})`, versions.latest);
  }
  const archiveUrl =
    versions === null
      ? unversionedArchiveUrl(body.endpoint, endpoint, mount, body.name)
      : `${endpoint}/v${versions.latest}/`;
  const archive = await get(archiveUrl, body.token);
  if (archive.status !== 200) {
    const location = archive.headers.get('location');
    const hint =
      archive.status === 401
        ? body.token === undefined
          ? ' (a token-guarded archive: give the token, e.g. with --auth-env NAME)'
          : ` (the token given${body.auth_env === undefined ? '' : ` in ${body.auth_env}`} was refused)`
        : archive.status >= 300 && archive.status < 400
          ? ` (a redirect${location === null ? '' : ` to ${location}`}: give the URL it points to)`
          : '';
    throw unusable(`${archiveUrl} answered ${archive.status}${hint}`);
  }
  const manifest = manifestOf(archive, archiveUrl);
  if (manifest.name !== body.name) {
    throw new ApiError(
      'validation_failed',
      `the archive at ${archiveUrl} declares the plugin '${manifest.name}', not '${body.name}'`,
      { field: 'name', received: body.name },
    );
  }
  // A plugin that does not answer `/versions` below a major's path (the kit does) still
  // names its major in the archive.
  if (versions === null && manifest.major !== null && versionSegment !== undefined) {
    throw withVersion(`is versioned (its archive declares major ${manifest.major})`);
  }
  if (manifest.major !== (versions?.latest ?? null)) {
    throw unusable(
      versions === null
        ? `${archiveUrl} declares major ${manifest.major}, but ${endpoint}/versions names no majors`
        : `${archiveUrl} declares major ${manifest.major}, but /versions names ${versions.latest} the latest`,
    );
  }
  checkManifest(manifest, archiveUrl);
  if (manifest.auth === 'token' && body.auth_env === undefined) {
    throw new ApiError(
      'validation_failed',
      `${body.name} takes a shared token: name the variable that holds it (auth_env, --auth-env NAME), which each calling broker reads from its profile's env store`,
      { field: 'auth_env' },
    );
  }
  // A versioned handler's archive declares `/v<N>` routes (SPEC): under `<mount>/v<latest>`.
  checkPaths(
    manifest,
    url.origin,
    versions === null ? mount : `${mount}/v${versions.latest}`,
    archiveUrl,
  );

  const commands = manifest.commands.map((command) => ({
    group: command.group,
    name: command.name,
    description: command.description,
    scope: command.scope,
    streaming: command.streaming,
    method: command.rest.method,
    path: command.rest.path,
    input: command.input,
  }));
  if (nestsTooDeep(commands)) {
    throw unusable(`plugin.json in the archive at ${archiveUrl} nests too deeply to keep`);
  }
  const now = new Date().toISOString();
  return store.db.transaction(() => {
    const current = store.plugins.get(body.name);
    const plugin: Plugin = {
      name: manifest.name,
      description: manifest.description,
      endpoint: body.endpoint,
      origin: url.origin,
      major: manifest.major,
      supported: versions?.supported ?? null,
      auth: manifest.auth,
      // Only a shared token is read from the env store; kept for another mode, it would
      // say a token is used where none is.
      auth_env: manifest.auth === 'token' ? (body.auth_env ?? null) : null,
      groups: manifest.groups,
      commands,
      etag: archive.headers.get('etag'),
      installed_at: current?.installed_at ?? now,
      updated_at: now,
    };
    store.plugins.upsert(plugin);
    events.record(
      current === undefined ? 'plugin.installed' : 'plugin.updated',
      plugin.name,
      summary(plugin),
    );
    return plugin;
  });
}
