/**
 * Short names of the older vocabulary. The spec no longer accepts them; each maps to the `svc:`
 * form a caller most likely meant, so the rejection can name it.
 */
export const LEGACY_SCOPES: Readonly<Record<string, string>> = Object.freeze({
  llm: 'svc:llm',
  act: 'svc:act',
  // Asking a human (a human request) is gated by `svc:act`.
  ask: 'svc:act',
  schedule: 'svc:schedule',
  'memory:read': 'svc:memory:read:user',
  'memory:write': 'svc:memory:rw:user',
});

/** The rejection for a legacy name, or `null` when `scope` is not one. */
export function legacyReason(scope: string): string | null {
  const replacement = Object.hasOwn(LEGACY_SCOPES, scope) ? LEGACY_SCOPES[scope] : undefined;
  return replacement === undefined
    ? null
    : `'${scope}' is a retired short name; use '${replacement}'`;
}
