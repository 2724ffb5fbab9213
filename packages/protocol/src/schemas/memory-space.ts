/**
 * Where a memory document lives (docs/api-v1.md "Memory"): a space and a path inside it. The
 * daemon, the client's argument checks, the CLI and the node tools read them with these helpers,
 * so the four agree on what a space and a path are.
 */
import { ID_PREFIXES, isId, isName } from '../ids.ts';
import { UNSHOWABLE } from '../text.ts';

/** `user`, `app:<id>`, `app:<id>:profile:<p>` or `node:<nd_…>`. */
export type MemorySpace =
  | { owner: 'user' }
  | { owner: 'app'; appId: string; profile?: string }
  | { owner: 'node'; nodeId: string };

/** The longest document path (characters). */
export const MEMORY_PATH_MAX = 512;

const NAME = '[a-z][a-z0-9-]{0,62}';
const ULID = '[0-7][0-9A-HJKMNP-TV-Z]{25}';
/** The space grammar as one pattern (the OpenAPI document shows it). */
export const MEMORY_SPACE_PATTERN = new RegExp(
  `^(?:user|app:${NAME}(?::profile:${NAME})?|node:${ID_PREFIXES.node}${ULID})$`,
);

/** The parsed space, or `null` when `value` is not one. */
export function parseMemorySpace(value: unknown): MemorySpace | null {
  if (typeof value !== 'string' || !MEMORY_SPACE_PATTERN.test(value)) return null;
  if (value === 'user') return { owner: 'user' };
  const [owner, id = '', keyword, profile] = value.split(':');
  if (owner === 'node') return isId('node', id) ? { owner: 'node', nodeId: id } : null;
  if (!isName(id)) return null;
  if (keyword === undefined) return { owner: 'app', appId: id };
  return isName(profile) ? { owner: 'app', appId: id, profile } : null;
}

export function formatMemorySpace(space: MemorySpace): string {
  switch (space.owner) {
    case 'user':
      return 'user';
    case 'node':
      return `node:${space.nodeId}`;
    case 'app':
      return space.profile === undefined
        ? `app:${space.appId}`
        : `app:${space.appId}:profile:${space.profile}`;
  }
}

/**
 * Why `path` is not a document path (a phrase to follow "path "), or `null` when it is one:
 * relative, segments separated by single `/`, none empty, `.` or `..`, no control character
 * (bidirectional controls included),
 * at most `MEMORY_PATH_MAX` characters.
 */
export function memoryPathProblem(path: unknown): string | null {
  if (typeof path !== 'string') return 'must be a string';
  if (path.length === 0) return 'must not be empty';
  if (path.length > MEMORY_PATH_MAX) return `must be at most ${MEMORY_PATH_MAX} characters`;
  if (UNSHOWABLE.test(path)) return 'must not contain control characters';
  if (path.startsWith('/')) return "must be relative (no leading '/'), e.g. prefs/food.md";
  for (const segment of path.split('/')) {
    if (segment === '') return "must not have empty segments ('//' or a trailing '/')";
    if (segment === '.' || segment === '..') return "must not have '.' or '..' segments";
  }
  return null;
}
