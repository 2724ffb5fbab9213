/**
 * The scope vocabulary (SPEC "Scope vocabulary") as one regular expression, for the OpenAPI
 * document: a client generated from it checks a scope's shape before sending. `tryParseScope`
 * stays the judge and says why a scope is refused; this grammar takes every scope it takes and
 * only three looser things: a provider scope named `svc:<x>`, a retired short name
 * (`memory:read`), and a `..` segment in a path (those need lookaheads, which RE2 lacks).
 * Written portably (see `SPACE_OR_CONTROL`).
 */
import { BIDI_CONTROLS, SPACE_OR_CONTROL } from '../text.ts';

const NAME = '[a-z][a-z0-9-]{0,62}';
/** What a path may hold (`normalizeAbsolutePath`): no whitespace, comma or control character. */
const PATH_CHAR = `[^${SPACE_OR_CONTROL},${BIDI_CONTROLS}]`;

const SVC = [
  'llm',
  'act',
  'schedule',
  'files:share',
  'memory:manage:user',
  `memory:(read|rw):user(:${PATH_CHAR}*)?`,
  `memory:(read|rw):app(:${NAME}(:profile:${NAME})?)?`,
  `files:(read|rw):(user|app:${NAME}):/${PATH_CHAR}*`,
  `(conversations|objects):read:app:${NAME}`,
];

export const SCOPE_PATTERN = `^(svc:(${SVC.join('|')})|${NAME}:${NAME})$`;
