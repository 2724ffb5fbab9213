/**
 * The one parser of the scope vocabulary (SPEC "Scope vocabulary", DESIGN §5). A scope string
 * parses to a `ParsedScope`; `formatScope` prints its canonical string, so
 * `formatScope(parseScope(s))` is the normalized form of `s` (directories normalized).
 */
import { isName } from '../ids.ts';
import { legacyReason } from './legacy.ts';
import { normalizeAbsolutePath } from './paths.ts';
import { ScopeError } from './scope-error.ts';

export type Scope = string;
export type ScopeAccess = 'read' | 'rw';

export type ParsedScope =
  | { kind: 'llm' }
  | { kind: 'act' }
  | { kind: 'schedule' }
  | { kind: 'files-share' }
  /** The person's documents; `path` (absent = all) narrows to a document subtree. `manage` has no path. */
  | { kind: 'memory'; owner: 'user'; access: ScopeAccess | 'manage'; path?: string }
  /** An app's documents; `appId: null` is the holder's own app; `profile` narrows to one profile. */
  | { kind: 'memory'; owner: 'app'; access: ScopeAccess; appId: string | null; profile?: string }
  | { kind: 'files'; owner: 'user'; access: ScopeAccess; dir: string }
  | { kind: 'files'; owner: 'app'; access: ScopeAccess; appId: string; dir: string }
  | { kind: 'conversations' | 'objects'; appId: string }
  | { kind: 'provider'; provider: string; group: string };

export type ScopeKind = ParsedScope['kind'];

/** Longest scope string accepted (a directory may be long, but not unbounded). */
export const MAX_SCOPE_LENGTH = 1024;

const SIMPLE = { llm: 'llm', act: 'act', schedule: 'schedule' } as const;
const FAMILIES = 'llm, act, schedule, memory, files, conversations, objects';

type Result = { ok: true; scope: ParsedScope } | { ok: false; reason: string };

export function tryParseScope(s: string): Result {
  if (typeof s !== 'string') return { ok: false, reason: 'a scope must be a string' };
  const fail = (why: string): Result => ({
    ok: false,
    reason: `'${clip(s)}' is not a scope: ${why}`,
  });
  if (s.length === 0) return fail('it is empty');
  if (s.length > MAX_SCOPE_LENGTH) return fail(`it is longer than ${MAX_SCOPE_LENGTH} characters`);
  if (s.trim() !== s) return fail('it has surrounding whitespace');
  const legacy = legacyReason(s);
  if (legacy !== null) return { ok: false, reason: legacy };

  if (!s.startsWith('svc:')) {
    const [provider, group, ...more] = s.split(':');
    if (group === undefined || more.length > 0) {
      return fail("expected 'svc:…' or '<provider>:<group>'");
    }
    if (!isName(provider) || !isName(group)) {
      return fail(
        'provider and group must each be a lowercase letter then up to 62 of a-z, 0-9, -',
      );
    }
    return { ok: true, scope: { kind: 'provider', provider, group } };
  }

  const rest = s.slice('svc:'.length);
  const [family = '', ...parts] = rest.split(':');
  if (Object.hasOwn(SIMPLE, family)) {
    if (parts.length > 0) return fail(`'svc:${family}' takes no suffix`);
    return { ok: true, scope: { kind: SIMPLE[family as keyof typeof SIMPLE] } };
  }
  const parsed =
    family === 'memory'
      ? parseMemory(parts)
      : family === 'files'
        ? parseFiles(parts)
        : family === 'conversations' || family === 'objects'
          ? parseAppRead(family, parts)
          : `unknown family 'svc:${family}' (known: ${FAMILIES})`;
  return typeof parsed === 'string' ? fail(parsed) : { ok: true, scope: parsed };
}

export function parseScope(s: string): ParsedScope {
  const result = tryParseScope(s);
  if (!result.ok) throw new ScopeError(String(s), result.reason);
  return result.scope;
}

/** The canonical string of a parsed scope. */
export function formatScope(p: ParsedScope): Scope {
  switch (p.kind) {
    case 'llm':
    case 'act':
    case 'schedule':
      return `svc:${p.kind}`;
    case 'files-share':
      return 'svc:files:share';
    case 'provider':
      return `${p.provider}:${p.group}`;
    case 'conversations':
    case 'objects':
      return `svc:${p.kind}:read:app:${p.appId}`;
    case 'files':
      return p.owner === 'user'
        ? `svc:files:${p.access}:user:${p.dir}`
        : `svc:files:${p.access}:app:${p.appId}:${p.dir}`;
    case 'memory':
      if (p.owner === 'user') {
        return `svc:memory:${p.access}:user${p.path === undefined ? '' : `:${p.path}`}`;
      }
      return (
        `svc:memory:${p.access}:app` +
        (p.appId === null ? '' : `:${p.appId}`) +
        (p.profile === undefined ? '' : `:profile:${p.profile}`)
      );
  }
}

/** Parses and prints back: the canonical string of `s`. Throws `ScopeError`. */
export function canonicalScope(s: string): Scope {
  return formatScope(parseScope(s));
}

// svc:memory:<read|rw|manage>:user[:<path>] | svc:memory:<read|rw>:app[:<id>[:profile:<p>]]
function parseMemory(parts: string[]): ParsedScope | string {
  const [access, owner, ...tail] = parts;
  if (access !== 'read' && access !== 'rw' && access !== 'manage') {
    return "memory access must be 'read', 'rw' or 'manage'";
  }
  if (owner === 'user') {
    if (tail.length === 0) return { kind: 'memory', owner, access };
    if (access === 'manage') return "'svc:memory:manage:user' takes no path";
    // A document path may contain ':'; a leading '/' is optional and canonical.
    const raw = tail.join(':');
    const norm = normalizeAbsolutePath(raw.startsWith('/') ? raw : `/${raw}`);
    if (!norm.ok) return `the memory path ${norm.reason}`;
    return norm.path === '/'
      ? { kind: 'memory', owner, access }
      : { kind: 'memory', owner, access, path: norm.path };
  }
  if (owner === 'app') {
    if (access === 'manage') return "'manage' applies only to 'svc:memory:manage:user'";
    const [appId, keyword, profile, ...more] = tail;
    if (appId === undefined) return { kind: 'memory', owner, access, appId: null };
    if (!isName(appId)) return `app id '${clip(appId)}' is not a valid app name`;
    if (keyword === undefined) return { kind: 'memory', owner, access, appId };
    if (keyword !== 'profile' || profile === undefined || more.length > 0) {
      return "after the app id only ':profile:<profile>' may follow";
    }
    if (!isName(profile)) return `profile '${clip(profile)}' is not a valid profile name`;
    return { kind: 'memory', owner, access, appId, profile };
  }
  return "memory owner must be 'user' or 'app'";
}

// svc:files:share | svc:files:<read|rw>:user:<dir> | svc:files:<read|rw>:app:<id>:<dir>
function parseFiles(parts: string[]): ParsedScope | string {
  const [access, owner, ...tail] = parts;
  if (access === 'share') {
    return parts.length === 1 ? { kind: 'files-share' } : "'svc:files:share' takes no suffix";
  }
  if (access !== 'read' && access !== 'rw') return "files access must be 'read', 'rw' or 'share'";
  let appId: string | undefined;
  if (owner === 'app') {
    appId = tail.shift();
    if (appId === undefined || !isName(appId))
      return "'svc:files:<access>:app' needs a valid app id";
  } else if (owner !== 'user') {
    return "files owner must be 'user' or 'app'";
  }
  if (tail.length === 0) return 'a files scope needs a directory';
  const norm = normalizeAbsolutePath(tail.join(':'));
  if (!norm.ok) return `the directory ${norm.reason}`;
  return appId === undefined
    ? { kind: 'files', owner: 'user', access, dir: norm.path }
    : { kind: 'files', owner: 'app', access, appId, dir: norm.path };
}

// svc:conversations:read:app:<id> | svc:objects:read:app:<id>
function parseAppRead(kind: 'conversations' | 'objects', parts: string[]): ParsedScope | string {
  const [access, owner, appId, ...more] = parts;
  if (access !== 'read' || owner !== 'app' || appId === undefined || more.length > 0) {
    return `expected 'svc:${kind}:read:app:<id>'`;
  }
  if (!isName(appId)) return `app id '${clip(appId)}' is not a valid app name`;
  return { kind, appId };
}

function clip(s: string): string {
  return s.length > 80 ? `${s.slice(0, 80)}…` : s;
}
