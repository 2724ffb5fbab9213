/**
 * The plugin registry (DESIGN §5, "Plugin install"). Installing reads the plugin's archive from
 * its endpoint once: `/versions` first, then the latest major's archive (or the endpoint's own
 * archive when it serves no versions). It refuses compressed bytes, a name other than the one
 * asked for, and any command path outside the endpoint's path, which is how a handler that does
 * not know its mount shows (SPEC, "Installing a plugin"). It keeps only the endpoint's origin as
 * the transport, and each command's full path.
 */

import { readTar } from '@svc/plugin-kit/archive';
import {
  type BrokerPlugin,
  type PluginInstallBody as InstallBody,
  type Plugin,
  pluginToolName,
} from '@svc/protocol';
import { z } from 'zod';
import { ApiError } from '../errors.ts';
import { failureReason, readUpTo } from '../fetch-read.ts';
import type { Store } from '../store/index.ts';
import { fromJson, nestsTooDeep, toJson } from '../store/json.ts';
import type { PluginRow } from '../store/plugins.ts';
import type { EventLog } from './events.ts';

/** An archive is a manifest and little else; this bounds what a hostile endpoint can send. */
const MAX_ARCHIVE_BYTES = 8 * 1024 * 1024;
/** Per GET: a manifest from a live endpoint comes back in well under a second. */
const TIMEOUT_MS = 10_000;

/** The leading bytes of the compressed formats an installer must refuse (DESIGN §5). */
const COMPRESSED: readonly { name: string; magic: readonly number[] }[] = [
  { name: 'gzip', magic: [0x1f, 0x8b] },
  { name: 'bzip2', magic: [0x42, 0x5a, 0x68] },
  { name: 'xz', magic: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00] },
  { name: 'zstd', magic: [0x28, 0xb5, 0x2f, 0xfd] },
];

/**
 * A group's or command's name, as the kit's `definePlugin` admits it: it becomes a path segment
 * and half of a scope, so an empty or odd one could collide with another.
 */
const segmentSchema = z.string().regex(/^[a-z][a-z0-9-]{0,62}$/); // a name, as a scope's half is

/** What `plugin.json` must hold; anything else in it is ignored. */
const manifestSchema = z.object({
  name: z.string(),
  major: z.number().int().positive().nullable(),
  description: z.string(),
  auth: z.enum(['none', 'token', 'directory']),
  groups: z
    .array(z.object({ name: segmentSchema, description: z.string(), scope: z.string() }))
    .min(1),
  commands: z
    .array(
      z.object({
        group: segmentSchema,
        name: segmentSchema,
        description: z.string(),
        input: z.record(z.string(), z.unknown()).or(z.boolean()),
        streaming: z.boolean(),
        scope: z.string(),
        rest: z.object({ method: z.literal('POST'), path: z.string().startsWith('/') }),
      }),
    )
    .min(1),
});
type Manifest = z.output<typeof manifestSchema>;

/** A major's path segment, as the kit reads one (`/v1`, not `/v0` or `/v01`). */
const VERSION_SEGMENT = /^v[1-9][0-9]*$/;

const versionsSchema = z.object({
  latest: z.number().int().positive(),
  supported: z.array(z.number().int().positive()).min(1),
});

export function pluginService(store: Store, events: EventLog) {
  function toDto(row: PluginRow): Plugin {
    return {
      name: row.name,
      description: row.description,
      endpoint: row.endpoint,
      origin: row.origin,
      major: row.major,
      supported: fromJson<number[]>(row.supported),
      auth: row.auth,
      auth_env: row.auth_env,
      groups: JSON.parse(row.groups_json) as Plugin['groups'],
      commands: JSON.parse(row.commands) as Plugin['commands'],
      etag: row.etag,
      installed_at: row.installed_at,
      updated_at: row.updated_at,
    };
  }

  function toRow(plugin: Plugin): PluginRow {
    const { supported, groups, commands, ...columns } = plugin;
    return {
      ...columns,
      supported: toJson(supported),
      groups_json: JSON.stringify(groups),
      commands: JSON.stringify(commands),
    };
  }

  function found(name: string): PluginRow {
    const row = store.plugins.get(name);
    if (row === undefined)
      throw new ApiError('not_found', `no plugin '${name}'`, { field: 'name' });
    return row;
  }

  /**
   * GET with the bearer when given, no redirects followed, bounded in time and size. A compressed
   * answer is refused before its body is read: fetch would inflate it first. The body is read
   * only when `wanted` says so from the status and headers.
   */
  async function get(
    url: string,
    token: string | undefined,
    wanted: (answer: Head) => boolean = () => true,
    // Only the archive must come as sent: a proxy that compresses JSON may compress `/versions`,
    // which fetch inflates.
    archive = true,
  ): Promise<Fetched> {
    const headers = new Headers(token === undefined ? {} : { Authorization: `Bearer ${token}` });
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'GET',
        redirect: 'manual',
        signal: AbortSignal.timeout(TIMEOUT_MS),
        headers,
      });
    } catch (cause) {
      // Not a bad archive: nothing answered at the address given, which the caller can fix (a
      // 4xx, never retried), and is told as such rather than as a failed validation.
      throw new ApiError(
        'invalid_request',
        `could not reach ${url}: ${failureReason(cause, token)}; is the plugin's server running at that address?`,
        { field: 'endpoint' },
      );
    }
    const encoding = response.headers.get('content-encoding');
    if (archive && encoding !== null && encoding.trim().toLowerCase() !== 'identity') {
      await response.body?.cancel().catch(() => {});
      throw unusable(
        `${url} was sent with Content-Encoding: ${encoding}; a plugin archive must not be compressed (a proxy or middleware in front of the handler compresses it)`,
      );
    }
    if (!wanted(response)) {
      await response.body?.cancel().catch(() => {});
      return { status: response.status, headers: response.headers, bytes: new Uint8Array() };
    }
    const bytes = await readBounded(response, url, token);
    return { status: response.status, headers: response.headers, bytes };
  }

  async function readBounded(
    response: Response,
    url: string,
    token: string | undefined,
  ): Promise<Uint8Array> {
    const declared = Number(response.headers.get('content-length') ?? Number.NaN);
    if (declared > MAX_ARCHIVE_BYTES) {
      await response.body?.cancel().catch(() => {});
      throw unusable(`${url} answered more than ${MAX_ARCHIVE_BYTES} bytes`);
    }
    let read: Awaited<ReturnType<typeof readUpTo>>;
    try {
      read = await readUpTo(response.body, MAX_ARCHIVE_BYTES);
    } catch (cause) {
      throw unusable(`reading ${url} failed: ${failureReason(cause, token)}`);
    }
    if (read.cut) throw unusable(`${url} answered more than ${MAX_ARCHIVE_BYTES} bytes`);
    return read.bytes;
  }

  /** The endpoint's majors from `<endpoint>/versions`, or `null` when it serves none. */
  async function versionsOf(endpoint: string, token: string | undefined) {
    // An unversioned handler answers every GET with its archive, `/versions` included: only a
    // JSON 200 is read, so that archive is not downloaded twice. A JSON 200 claims majors, so
    // it must be a versions document, whether it fails to parse or has another shape.
    const isVersions = (answer: Head) => answer.status === 200 && isJson(answer.headers);
    const answer = await get(`${endpoint}/versions`, token, isVersions, false);
    if (!isVersions(answer)) return null;
    let parsed: unknown;
    try {
      parsed = JSON.parse(new TextDecoder().decode(answer.bytes));
    } catch {
      parsed = undefined;
    }
    const versions = versionsSchema.safeParse(parsed);
    if (!versions.success || !versions.data.supported.includes(versions.data.latest)) {
      throw unusable(`${endpoint}/versions is not {"latest": N, "supported": [...]}`);
    }
    return versions.data;
  }

  return {
    /** `POST /v1/plugins`: reads the archive, checks it, and installs or updates the plugin. */
    async install(body: InstallBody): Promise<Plugin> {
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
        store.plugins.upsert(toRow(plugin));
        events.record(
          current === undefined ? 'plugin.installed' : 'plugin.updated',
          plugin.name,
          summary(plugin),
        );
        return plugin;
      });
    },

    /** By name after `after`, at most `limit`. */
    list(after: string, limit: number): Plugin[] {
      return store.plugins.list(after, limit).map(toDto);
    },

    retrieve(name: string): Plugin {
      return toDto(found(name));
    },

    /** `DELETE /v1/plugins/{name}`: answers what was removed. */
    remove(name: string): Plugin {
      return store.db.transaction(() => {
        const dto = toDto(found(name));
        store.plugins.remove(name);
        events.record('plugin.removed', name, summary(dto));
        return dto;
      });
    },
  };
}

export type PluginService = ReturnType<typeof pluginService>;

/**
 * What a broker's claim offers of the installed plugins: the `<plugin>:<group>` tool names to cut
 * by scopes and the profile's list, and, once cut, the plugins with the commands of the groups
 * kept. Only the commands agents are offered count (`pluginToolName`: none whose name is too long).
 */
export function offeredPlugins(rows: readonly PluginRow[]): {
  groups: string[];
  keep(tools: readonly string[]): BrokerPlugin[];
} {
  const plugins = rows.flatMap((row) => {
    const commands = (JSON.parse(row.commands) as Plugin['commands']).filter(
      (command) => pluginToolName(command) !== null,
    );
    if (commands.length === 0) return [];
    return [
      { name: row.name, origin: row.origin, auth: row.auth, auth_env: row.auth_env, commands },
    ];
  });
  return {
    groups: plugins.flatMap(({ commands }) => [...new Set(commands.map((c) => c.scope))]),
    keep: (tools) =>
      plugins
        .map((plugin) => ({
          ...plugin,
          commands: plugin.commands.filter((command) => tools.includes(command.scope)),
        }))
        .filter((plugin) => plugin.commands.length > 0),
  };
}

/** What an answer says before its body is read. */
type Head = Pick<Response, 'status' | 'headers'>;

interface Fetched extends Head {
  bytes: Uint8Array;
}

/** `plugin.json` of an uncompressed tar, or the reason the bytes are not a plugin archive. */
function manifestOf(archive: Fetched, url: string): Manifest {
  const format = COMPRESSED.find(({ magic }) =>
    magic.every((byte, i) => archive.bytes[i] === byte),
  );
  if (format !== undefined) {
    throw unusable(
      `${url} sent ${format.name}-compressed bytes; a plugin archive must be an uncompressed tar`,
    );
  }
  let entries: ReturnType<typeof readTar>;
  try {
    entries = readTar(archive.bytes);
  } catch (cause) {
    throw unusable(`${url} did not send a tar archive: ${failureReason(cause)}`);
  }
  if (entries.length === 0) {
    const type = archive.headers.get('content-type') ?? 'no Content-Type';
    throw unusable(`${url} did not send a tar archive (${archive.bytes.length} bytes of ${type})`);
  }
  // `tar -cf x.tar -C dir .` names it `./plugin.json`: the same file, at the archive's root.
  const entry = entries.find((e) => e.name.replace(/^(?:\.\/)+/, '') === 'plugin.json');
  if (entry === undefined) throw unusable(`the archive at ${url} has no plugin.json`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(entry.data));
  } catch {
    throw unusable(`plugin.json in the archive at ${url} is not JSON`);
  }
  const manifest = manifestSchema.safeParse(parsed);
  if (!manifest.success) {
    const issue = manifest.error.issues[0];
    throw unusable(
      `plugin.json in the archive at ${url} is not a plugin manifest: ${issue?.path.join('.') || '(root)'}: ${issue?.message}`,
    );
  }
  return manifest.data;
}

/**
 * What the manifest says must hold together: each scope is `<plugin>:<group>` of a declared
 * group (the scope gates calls, so a manifest may not claim another), each command once.
 */
function checkManifest(manifest: Manifest, url: string): void {
  const groups = new Set<string>();
  for (const group of manifest.groups) {
    if (group.scope !== `${manifest.name}:${group.name}`) {
      throw unusable(`the archive at ${url} gives group ${group.name} the scope ${group.scope}`);
    }
    if (groups.has(group.name)) {
      throw unusable(`the archive at ${url} declares group ${group.name} twice`);
    }
    groups.add(group.name);
  }
  const commands = new Set<string>();
  for (const command of manifest.commands) {
    const key = `${command.group}/${command.name}`;
    if (!groups.has(command.group) || command.scope !== `${manifest.name}:${command.group}`) {
      throw unusable(`the archive at ${url} declares ${key} outside its groups or scopes`);
    }
    if (commands.has(key)) throw unusable(`the archive at ${url} declares ${key} twice`);
    commands.add(key);
  }
}

/**
 * Where an unversioned handler's archive is read. Such a handler takes its mount from the GET's
 * path, cut before the last segment naming the plugin (SPEC: `<mount>/<plugin_name>/...`): a
 * mount holding that name before its end (`/teams/acme/tools`) is asked in that form, or it
 * would read as `/teams`. One ending in it (`/plugins/acme`, the archive's own URL as often as a
 * mount) is asked as given: the paths it yields reach the handler either way.
 * @param endpoint the endpoint without its trailing slash, whose path is `mount`
 */
function unversionedArchiveUrl(given: string, endpoint: string, mount: string, name: string) {
  return mount.split('/').slice(0, -1).includes(name) ? `${endpoint}/${name}/` : given;
}

/**
 * Every command path must lie under the endpoint's path, and mean just that once resolved on the
 * origin: the transport keeps only the origin, so a path without the mount prefix would send
 * calls to the origin root (SPEC, "Installing a plugin"; `baseUrl` is no repair for it), and one
 * like `//host/x`, `/p/../x`, `/p/%2e%2e/x` or `/p\\x` would send them elsewhere.
 */
function checkPaths(manifest: Manifest, origin: string, mount: string, url: string): void {
  for (const { rest } of manifest.commands) {
    let resolved: URL | null = null;
    try {
      resolved = new URL(rest.path, origin);
    } catch {}
    // An encoded `/` or `\` is one segment here and may be several at a server that decodes it.
    if (/%(?:2f|5c)/i.test(rest.path)) {
      throw unusable(`the archive at ${url} declares ${rest.path}, with an encoded slash`);
    }
    if (
      resolved === null ||
      resolved.origin !== origin ||
      resolved.pathname !== rest.path ||
      !rest.path.startsWith(`${mount}/`)
    ) {
      throw unusable(
        `the archive at ${url} declares ${rest.path}, outside the endpoint's path ${mount || '/'}: the handler does not know its mount; serve it where the public URL's path reaches it unchanged, or set its baseUrl to the public URL`,
      );
    }
  }
}

/** An event's payload: what changed, not every input schema again (those are in the record). */
function summary(plugin: Plugin) {
  return {
    plugin: plugin.name,
    origin: plugin.origin,
    major: plugin.major,
    auth: plugin.auth,
    commands: plugin.commands.length,
  };
}

function isJson(headers: Headers): boolean {
  return /^application\/(?:[\w.+-]+\+)?json\b/i.test(headers.get('content-type') ?? '');
}

function unusable(message: string): ApiError {
  return new ApiError('validation_failed', message, { field: 'endpoint' });
}
