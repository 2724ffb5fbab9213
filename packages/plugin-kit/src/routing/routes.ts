/**
 * Which definition, command and mount a request addresses. Everything works on the raw
 * `pathname`: URL parsing has already resolved `.` and `..` segments, and an encoded slash
 * (`%2F`) stays inside its segment, so it can never complete a route.
 */

import { BoundedCache } from '../bounded-cache.ts';
import { PluginError } from '../errors.ts';
import type { CommandDefinition, JsonObject, PluginDefinition } from '../types.ts';
import { pathnameOf } from './pathname.ts';

/** Longer paths are resolved anew each time (unless the same URL comes again at once): the cache
 * of paths holds at most 256 × this. */
const MAX_CACHED_PATH = 512;

export interface CommandEntry {
  def: PluginDefinition;
  group: string;
  name: string;
  command: CommandDefinition;
  /** `<plugin>:<group>` */
  scope: string;
  /** The command's input check: throws the 422 when the input fails its schema. */
  check: (input: JsonObject) => void;
}

export type Route =
  /**
   * `own`: the path is plainly the archive's (the root, `…/<plugin>`, `…/v<N>` or `…/v<N>/<plugin>`),
   * so a POST there is a wrong method (405), not an unknown path (404). Any other path an
   * unversioned handler also answers GET with could as well be a mistyped command's, so 404.
   */
  | { kind: 'archive'; def: PluginDefinition; mount: string; own: boolean }
  | { kind: 'versions' }
  | { kind: 'command'; entry: CommandEntry }
  /** `public`: the path is `/versions`, which answers every method without a token. */
  | { kind: 'options'; allow: string; public: boolean }
  | { kind: 'error'; error: PluginError; allow?: string; public?: boolean };

/** No command at the path; `missingMajor` when its `/v<N>` names a major not served. */
type Miss = { entry: null; missingMajor: number | null };
type Match = { entry: CommandEntry; mount: string } | Miss;

const NO_COMMAND: Miss = { entry: null, missingMajor: null };

/**
 * A path's match and the routes it answers, each worked out on its first use. The routes are
 * kept objects: a request for a known path allocates nothing here, and a caller may key its own
 * caches by them (an error route's `PluginError` is shared too; nothing changes one once built).
 */
type PathRoutes = { match: Match; read?: Route; post?: Route; options?: Route };

// A command answers POST only: the "GET on a command → 405 with Allow" is read over the
// spec's archive on "<mount>/<plugin_name>/..." (every other GET path still serves it).
const ALLOW_COMMAND = 'POST';
const ALLOW_ARCHIVE = 'GET, HEAD';

export const VERSION_SEGMENT = /^v([1-9][0-9]*)$/;

export interface Router {
  /** @param url `request.url`, a serialized URL */
  resolve(method: string, url: string): Route;
}

/**
 * @param defs one unversioned definition, or one per major (`versioned`)
 * @param compile builds a command's input check once; `at` names its input in the definition
 * @param publicMount `baseUrl`'s path, when given: a request for it is one for the archive's own URL
 * behind a proxy that keeps paths; behind one that rewrites them the root is (both answer 405 to
 * a POST, and a path that is neither only differs in answering 404)
 */
export function createRouter(
  defs: readonly PluginDefinition[],
  versioned: boolean,
  compile: (command: CommandDefinition, at: string) => CommandEntry['check'],
  publicMount: string | null,
): Router {
  const byMajor = new Map(defs.map((def) => [def.version ?? 0, def]));
  const latest = defs.reduce((a, b) => ((b.version ?? 0) > (a.version ?? 0) ? b : a));
  const name = latest.name;

  // Suffix → command: `/<plugin>/<group>/<command>` (the latest major when versioned) and
  // `/v<N>/<plugin>/<group>/<command>` for each major.
  const commands = new Map<string, CommandEntry>();
  const aliases = new Set<string>();
  for (const [index, def] of defs.entries()) {
    const defAt = defs.length > 1 ? `plugin[${index}]` : 'plugin';
    for (const [group, groupDef] of Object.entries(def.groups)) {
      for (const [command, commandDef] of Object.entries(groupDef.commands)) {
        const entry = {
          def,
          group,
          name: command,
          command: commandDef,
          scope: `${name}:${group}`,
          check: compile(commandDef, `${defAt}.groups.${group}.commands.${command}.input`),
        };
        const suffix = `/${name}/${group}/${command}`;
        if (versioned) commands.set(`/v${def.version}${suffix}`, entry);
        if (def === latest) commands.set(suffix, entry);
        if (def === latest && versioned) aliases.add(suffix);
      }
    }
  }

  // A handler sees the same few paths again and again: what each resolves to is kept (a bounded
  // number of short paths, since paths come from callers), sparing the suffix scan's slices.
  const paths = new BoundedCache<string, PathRoutes>(256);
  // And a caller usually sends the same URL many times in a row: the last one is compared
  // before its path is cut out and looked up. A path cut from the URL is a new string each
  // time, so the lookup hashes it anew; comparing with the last URL costs far less.
  let lastUrl = '';
  let lastKnown: PathRoutes | undefined;

  /** What a path resolves to, worked out on its first use. */
  function routesOf(pathname: string): PathRoutes {
    let known = paths.get(pathname);
    if (known === undefined) {
      known = { match: matchCommand(pathname) };
      if (pathname.length <= MAX_CACHED_PATH) paths.set(pathname, known);
    }
    return known;
  }

  /**
   * The longest suffix of `pathname` naming a command, and the mount before it; otherwise a miss,
   * whose error is built only if it is answered (every archive GET misses).
   */
  function matchCommand(pathname: string): Match {
    // A suffix spans at most four segments, so only the last four slashes matter.
    const cuts: number[] = [];
    for (let at = pathname.length; cuts.length < 4 && at > 0; ) {
      at = pathname.lastIndexOf('/', at - 1);
      if (at < 0) break;
      cuts.push(at);
    }
    for (let i = cuts.length - 1; i >= 0; i--) {
      const at = cuts[i]!;
      const suffix = pathname.slice(at);
      const entry = commands.get(suffix);
      if (entry === undefined) continue;
      const mount = pathname.slice(0, at);
      // `/v1/acme/g/c` that only the latest's alias matched names a major lacking the command
      // (or a missing major), not the latest under a mount ending in `/v1`.
      const parent = mount.slice(mount.lastIndexOf('/') + 1);
      const major = aliases.has(suffix) ? VERSION_SEGMENT.exec(parent) : null;
      if (major !== null) {
        const n = Number(major[1]);
        return byMajor.has(n) ? NO_COMMAND : { entry: null, missingMajor: n };
      }
      return { entry, mount };
    }
    return NO_COMMAND;
  }

  function missError(miss: Miss, pathname: string): PluginError {
    return miss.missingMajor === null
      ? new PluginError(404, 'not_found', `No command of plugin "${name}" at ${pathname}`)
      : versionNotFound(miss.missingMajor);
  }

  function versionNotFound(major: number): PluginError {
    const supported = [...byMajor.keys()].sort((a, b) => a - b).join(', ');
    return new PluginError(
      404,
      'not_found',
      `Plugin "${name}" has no major ${major}; supported: ${supported}`,
      { field: 'version', received: major },
    );
  }

  /** GET/HEAD on a path naming no command: the archive (or `/versions`) it addresses, and its mount. */
  function resolveRead(pathname: string, match: Miss): Route {
    if (match.missingMajor !== null) {
      return { kind: 'error', error: versionNotFound(match.missingMajor) };
    }
    const path = trimSlashes(pathname);
    if (versioned && path.endsWith('/versions')) return { kind: 'versions' };
    // Segments from the last: `<mount>/v<N>/...` when versioned (SPEC: each major is mounted
    // under `<mount>/v<N>/`, and a versioned mount holds no `/v<N>` of its own, as its `baseUrl`
    // may not), so the last version segment ends the mount; else `<mount>/<plugin>/...`, where the
    // plugin's segments start at the last segment naming it.
    let pluginAt = -1;
    // What follows the plugin's segment, or the version's, when it is the archive's own path.
    const own = (rest: string) => rest === '' || rest === `/${name}`;
    for (let end = path.length; end > 0; ) {
      const start = path.lastIndexOf('/', end - 1);
      const segment = path.slice(start + 1, end);
      const major = versioned ? VERSION_SEGMENT.exec(segment) : null;
      if (major !== null) {
        const def = byMajor.get(Number(major[1]));
        if (def === undefined) return { kind: 'error', error: versionNotFound(Number(major[1])) };
        return { kind: 'archive', def, mount: path.slice(0, start), own: own(path.slice(end)) };
      }
      if (pluginAt < 0 && segment === name) {
        pluginAt = start;
        if (!versioned) break;
      }
      end = start;
    }
    return pluginAt < 0
      ? { kind: 'archive', def: latest, mount: path, own: path === '' || path === publicMount }
      : {
          kind: 'archive',
          def: latest,
          mount: path.slice(0, pluginAt),
          own: own(path.slice(pluginAt)),
        };
  }

  return {
    resolve(method, url) {
      let known = url === lastUrl ? lastKnown : undefined;
      if (known === undefined) {
        known = routesOf(pathnameOf(url));
        lastUrl = url;
        lastKnown = known;
      }
      const { match } = known;
      const allow = match.entry === null ? ALLOW_ARCHIVE : ALLOW_COMMAND;
      switch (method) {
        case 'GET':
        case 'HEAD':
          if (match.entry !== null) return methodNotAllowed(method, allow);
          known.read ??= resolveRead(pathnameOf(url), match);
          return known.read;
        case 'POST':
          known.post ??= resolvePost(pathnameOf(url), known);
          return known.post;
        case 'OPTIONS':
          known.options ??= { kind: 'options', allow, public: isVersions(url, known) };
          return known.options;
        default: {
          const refused = methodNotAllowed(method, allow);
          return isVersions(url, known) ? { ...refused, public: true } : refused;
        }
      }
    },
  };

  function isVersions(url: string, known: PathRoutes): boolean {
    if (known.match.entry !== null) return false;
    known.read ??= resolveRead(pathnameOf(url), known.match);
    return known.read.kind === 'versions';
  }

  function resolvePost(pathname: string, known: PathRoutes): Route {
    const { match } = known;
    if (match.entry !== null) return { kind: 'command', entry: match.entry };
    known.read ??= resolveRead(pathname, match);
    // The "POST on the archive" answers 405 as a wrong method; a path deeper under the
    // plugin's name (`<mount>/acme/tickets/nope`) names a command that is not there: 404.
    const { read } = known;
    if (read.kind === 'error') return read; // a major not served, named as on GET
    if (read.kind === 'versions')
      return { ...methodNotAllowed('POST', ALLOW_ARCHIVE), public: true };
    if (read.kind === 'archive' && read.own) return methodNotAllowed('POST', ALLOW_ARCHIVE);
    return { kind: 'error', error: missError(match, pathname) };
  }
}

/** Whether a route answers without a token: OPTIONS and a wrong method on `/versions`. */
export function isPublic(route: Route): boolean {
  return (route.kind === 'options' || route.kind === 'error') && route.public === true;
}

function methodNotAllowed(method: string, allow: string): Extract<Route, { kind: 'error' }> {
  return {
    kind: 'error',
    error: new PluginError(405, 'method_not_allowed', `${method} is not allowed here`, {
      received: method,
    }),
    allow,
  };
}

function trimSlashes(path: string): string {
  let end = path.length;
  while (end > 0 && path.charCodeAt(end - 1) === 0x2f) end--;
  return end === path.length ? path : path.slice(0, end);
}
