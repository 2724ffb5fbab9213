/** fast-check generators of valid scopes. Small pools so related scopes (same app, nested dirs) meet often. */
import fc from 'fast-check';
import type { ParsedScope } from '../src/scopes/index.ts';

export const appId = fc.constantFrom('app-a', 'app-b', 'c');
export const profile = fc.constantFrom('work', 'home');
export const access = fc.constantFrom('read' as const, 'rw' as const);
export const absPath = fc
  .array(fc.constantFrom('a', 'b', 'ab', 'a.b', 'x_1'), { maxLength: 3 })
  .map((segs) => `/${segs.join('/')}`);
const docPath = absPath.filter((p) => p !== '/');

export const parsedScope: fc.Arbitrary<ParsedScope> = fc.oneof(
  fc.constantFrom<ParsedScope>(
    { kind: 'llm' },
    { kind: 'act' },
    { kind: 'schedule' },
    { kind: 'files-share' },
    { kind: 'memory', owner: 'user', access: 'manage' },
  ),
  fc
    .tuple(access, fc.option(docPath, { nil: undefined }))
    .map(
      ([a, path]): ParsedScope =>
        path === undefined
          ? { kind: 'memory', owner: 'user', access: a }
          : { kind: 'memory', owner: 'user', access: a, path },
    ),
  fc
    .tuple(access, fc.option(appId, { nil: null }), fc.option(profile, { nil: undefined }))
    .map(
      ([a, id, p]): ParsedScope =>
        id === null || p === undefined
          ? { kind: 'memory', owner: 'app', access: a, appId: id }
          : { kind: 'memory', owner: 'app', access: a, appId: id, profile: p },
    ),
  fc
    .tuple(access, absPath)
    .map(([a, dir]): ParsedScope => ({ kind: 'files', owner: 'user', access: a, dir })),
  fc
    .tuple(access, appId, absPath)
    .map(
      ([a, id, dir]): ParsedScope => ({ kind: 'files', owner: 'app', access: a, appId: id, dir }),
    ),
  fc
    .tuple(fc.constantFrom('conversations' as const, 'objects' as const), appId)
    .map(([kind, id]): ParsedScope => ({ kind, appId: id })),
  fc
    .tuple(fc.constantFrom('github', 'mail-box'), fc.constantFrom('repos', 'read', 'send-2'))
    .map(([provider, group]): ParsedScope => ({ kind: 'provider', provider, group })),
);

/** What a scope is about, independent of access and path: covering never crosses it. */
export function target(p: ParsedScope): string {
  switch (p.kind) {
    case 'memory':
      return p.owner === 'user' ? 'memory:user' : `memory:app:${p.appId}`;
    case 'files':
      return p.owner === 'user' ? 'files:user' : `files:app:${p.appId}`;
    case 'conversations':
    case 'objects':
      return `${p.kind}:${p.appId}`;
    case 'provider':
      return `provider:${p.provider}:${p.group}`;
    default:
      return p.kind;
  }
}
