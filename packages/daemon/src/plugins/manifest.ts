/**
 * What a plugin's archive must be (DESIGN §5, "Plugin install"): an uncompressed tar holding a
 * `plugin.json` whose groups, commands, scopes and paths hold together, each command path under
 * the endpoint's (SPEC, "Installing a plugin").
 */
import { readTar } from '@svc/plugin-kit/archive';
import { z } from 'zod';
import { failureReason } from '../fetch-read.ts';
import type { Fetched } from './fetch-archive.ts';
import { unusable } from './refusal.ts';

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
export type Manifest = z.output<typeof manifestSchema>;

/** A major's path segment, as the kit reads one (`/v1`, not `/v0` or `/v01`). */
export const VERSION_SEGMENT = /^v[1-9][0-9]*$/;

/** `plugin.json` of an uncompressed tar, or the reason the bytes are not a plugin archive. */
export function manifestOf(archive: Fetched, url: string): Manifest {
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
export function checkManifest(manifest: Manifest, url: string): void {
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
export function unversionedArchiveUrl(
  given: string,
  endpoint: string,
  mount: string,
  name: string,
) {
  return mount.split('/').slice(0, -1).includes(name) ? `${endpoint}/${name}/` : given;
}

/**
 * Every command path must lie under the endpoint's path, and mean just that once resolved on the
 * origin: the transport keeps only the origin, so a path without the mount prefix would send
 * calls to the origin root (SPEC, "Installing a plugin"; `baseUrl` is no repair for it), and one
 * like `//host/x`, `/p/../x`, `/p/%2e%2e/x` or `/p\\x` would send them elsewhere.
 */
export function checkPaths(manifest: Manifest, origin: string, mount: string, url: string): void {
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
