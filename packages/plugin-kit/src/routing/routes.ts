/**
 * Which definition, command and mount a request addresses. Everything works on the raw
 * `pathname`: URL parsing has already resolved `.` and `..` segments, and an encoded slash
 * (`%2F`) stays inside its segment, so it can never complete a route.
 */
import { PluginError } from '../errors.ts';
import type { CommandDefinition, PluginDefinition } from '../types.ts';

export interface CommandEntry {
  def: PluginDefinition;
  group: string;
  name: string;
  command: CommandDefinition;
  /** `<plugin>:<group>` */
  scope: string;
}

export type Route =
  | { kind: 'archive'; def: PluginDefinition; mount: string }
  | { kind: 'versions' }
  | { kind: 'command'; entry: CommandEntry }
  | { kind: 'options'; allow: string }
  | { kind: 'error'; error: PluginError; allow?: string };

const ALLOW_COMMAND = 'GET, HEAD, POST';
const ALLOW_ARCHIVE = 'GET, HEAD';

const VERSION_SEGMENT = /^v([1-9][0-9]*)$/;

export interface Router {
  resolve(method: string, pathname: string): Route;
}

/**
 * @param defs one unversioned definition, or one per major (`versioned`)
 */
export function createRouter(defs: readonly PluginDefinition[], versioned: boolean): Router {
  const byMajor = new Map(defs.map((def) => [def.version ?? 0, def]));
  const latest = defs.reduce((a, b) => ((b.version ?? 0) > (a.version ?? 0) ? b : a));
  const name = latest.name;

  // Suffix → command: `/<plugin>/<group>/<command>` (the latest major when versioned) and
  // `/v<N>/<plugin>/<group>/<command>` for each major.
  const commands = new Map<string, CommandEntry>();
  const aliases = new Set<string>();
  for (const def of defs) {
    for (const [group, groupDef] of Object.entries(def.groups)) {
      for (const [command, commandDef] of Object.entries(groupDef.commands)) {
        const entry = { def, group, name: command, command: commandDef, scope: `${name}:${group}` };
        const suffix = `/${name}/${group}/${command}`;
        if (versioned) commands.set(`/v${def.version}${suffix}`, entry);
        if (def === latest) commands.set(suffix, entry);
        if (def === latest && versioned) aliases.add(suffix);
      }
    }
  }

  /** The longest suffix of `pathname` naming a command, and the mount before it. */
  function matchCommand(pathname: string): { entry: CommandEntry; mount: string } | PluginError {
    // A suffix spans at most four segments, so only the last four slashes matter.
    const cuts: number[] = [];
    for (let i = pathname.length - 1; i >= 0 && cuts.length < 4; i--) {
      if (pathname[i] === '/') cuts.unshift(i);
    }
    for (const cut of cuts) {
      const suffix = pathname.slice(cut);
      const entry = commands.get(suffix);
      if (entry === undefined) continue;
      const mount = pathname.slice(0, cut);
      // `/v1/acme/g/c` that only the latest's alias matched names a major lacking the command
      // (or a missing major), not the latest under a mount ending in `/v1`.
      const parent = mount.slice(mount.lastIndexOf('/') + 1);
      const major = aliases.has(suffix) ? VERSION_SEGMENT.exec(parent) : null;
      if (major !== null) {
        const n = Number(major[1]);
        return byMajor.has(n) ? notFound(pathname) : versionNotFound(n);
      }
      return { entry, mount };
    }
    return notFound(pathname);
  }

  function notFound(pathname: string): PluginError {
    return new PluginError(404, 'not_found', `No command of plugin "${name}" at ${pathname}`);
  }

  function versionNotFound(major: number): PluginError {
    const supported = [...byMajor.keys()].sort((a, b) => a - b).join(', ');
    return new PluginError(
      404,
      'version_not_found',
      `Plugin "${name}" has no major ${major}; supported: ${supported}`,
      { field: 'version', received: major },
    );
  }

  /** GET/HEAD: the archive (or `/versions`) a path addresses, and its mount. */
  function resolveRead(pathname: string, match: ReturnType<typeof matchCommand>): Route {
    if (!(match instanceof PluginError)) {
      return { kind: 'archive', def: match.entry.def, mount: match.mount };
    }
    if (match.code === 'version_not_found') return { kind: 'error', error: match };
    const segments = trimSlashes(pathname).split('/');
    if (versioned) {
      if (segments.at(-1) === 'versions') return { kind: 'versions' };
      // `<mount>/v<N>/...`: the last version segment ends the mount.
      for (let i = segments.length - 1; i > 0; i--) {
        const major = VERSION_SEGMENT.exec(segments[i] ?? '');
        if (major === null) continue;
        const def = byMajor.get(Number(major[1]));
        if (def === undefined) return { kind: 'error', error: versionNotFound(Number(major[1])) };
        return { kind: 'archive', def, mount: segments.slice(0, i).join('/') };
      }
    }
    // `<mount>/<plugin>/...`: the plugin's own segments start at the last one naming it.
    const pluginAt = segments.lastIndexOf(name);
    const mount = (pluginAt > 0 ? segments.slice(0, pluginAt) : segments).join('/');
    return { kind: 'archive', def: latest, mount };
  }

  return {
    resolve(method, pathname) {
      const match = matchCommand(pathname);
      const allow = match instanceof PluginError ? ALLOW_ARCHIVE : ALLOW_COMMAND;
      switch (method) {
        case 'GET':
        case 'HEAD':
          return resolveRead(pathname, match);
        case 'POST': {
          if (!(match instanceof PluginError)) return { kind: 'command', entry: match.entry };
          const read = resolveRead(pathname, match);
          if (read.kind === 'versions') return methodNotAllowed(method, allow);
          return { kind: 'error', error: match };
        }
        case 'OPTIONS':
          return { kind: 'options', allow };
        default:
          return methodNotAllowed(method, allow);
      }
    },
  };
}

function methodNotAllowed(method: string, allow: string): Route {
  return {
    kind: 'error',
    error: new PluginError(405, 'method_not_allowed', `${method} is not allowed here`, {
      received: method,
    }),
    allow,
  };
}

function trimSlashes(path: string): string {
  return path.replace(/\/+$/, '');
}
