/** Scope lists: what `--scopes`, `POST /v1/connect` and `nodes.create` carry. */
import { canonicalScope, type Scope } from './parse.ts';
import { ScopeError } from './scope-error.ts';

/**
 * Rules on a whole list (SPEC "Scope vocabulary", rule 1): a scope that is only usable together
 * with another. Not a `covers` implication: holding `svc:act` does not grant `svc:llm`.
 */
export const SCOPE_REQUIRES: Readonly<Record<Scope, Scope>> = Object.freeze({
  'svc:act': 'svc:llm',
});

/**
 * Accepts an array or one string separated by commas and/or whitespace. Trims, drops empty
 * entries, validates each (throws `ScopeError`), returns canonical strings in first-seen order
 * without duplicates, and enforces `SCOPE_REQUIRES`.
 */
export function parseScopeList(input: readonly string[] | string): Scope[] {
  const raw = typeof input === 'string' ? input.split(/[\s,]+/) : input;
  const out: Scope[] = [];
  for (const entry of raw) {
    if (typeof entry !== 'string') throw new ScopeError(String(entry), 'a scope must be a string');
    const trimmed = entry.trim();
    if (trimmed === '') continue;
    const scope = canonicalScope(trimmed);
    if (!out.includes(scope)) out.push(scope);
  }
  for (const scope of out) {
    const needed = SCOPE_REQUIRES[scope];
    if (needed !== undefined && !out.includes(needed)) {
      throw new ScopeError(scope, `'${scope}' requires '${needed}' in the same scope list`);
    }
  }
  return out;
}
