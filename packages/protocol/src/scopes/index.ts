export { ceilingViolation, covers, listCovers, parsedCovers } from './covers.ts';
export { SCOPE_PATTERN } from './grammar.ts';
export { LEGACY_SCOPES } from './legacy.ts';
export { parseScopeList, SCOPE_REQUIRES } from './list.ts';
export {
  canonicalScope,
  formatScope,
  MAX_SCOPE_LENGTH,
  type ParsedScope,
  parseScope,
  type Scope,
  type ScopeAccess,
  type ScopeKind,
  tryParseScope,
} from './parse.ts';
export { isWithin, normalizeAbsolutePath } from './paths.ts';
export { ScopeError } from './scope-error.ts';
