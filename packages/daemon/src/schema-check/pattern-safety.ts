/**
 * The regular expressions of a JSON Schema a token hands the daemon (`output_schema`,
 * `response_schema`, a custom object's event schemas) are matched on the thread that answers every
 * request. V8 backtracks, so one pattern such as `^(a|a)*b` or `\s+$` and one long string stall
 * the whole daemon (ReDoS). The kit's own compile-time check refuses only nested repetition; here
 * each pattern is proven free of super-linear backtracking by recheck (automata theory, with
 * fuzzing where the automaton would be too large), off the event loop, before the schema is taken.
 * A polynomial pattern is refused even under a `maxLength`: the validator matches the pattern
 * whether or not `maxLength` already failed.
 */
import type { JsonSchema } from '@svc/plugin-kit';
import { schemaPatterns } from '@svc/plugin-kit/json-schema';
import { check, type Diagnostics, type VulnerableDiagnostics } from 'recheck';
import { ApiError } from '../errors.ts';

/** How long one pattern may take to judge. */
const CHECK_TIMEOUT_MS = 3_000;
/** How long one schema's patterns may take in all; one not judged by then is refused. */
const SCHEMA_DEADLINE_MS = 10_000;
/** Distinct patterns one schema may hold: each costs the checker time. */
const PATTERNS_MAX = 64;
/** Judgements kept, by pattern: a schema is usually sent again with the same patterns. */
const CACHE_MAX = 1_000;

const judged = new Map<string, Promise<Diagnostics>>();

/** Throws 400 `invalid_request` naming `at` when a pattern of `schema` can backtrack badly. */
export async function screenPatterns(
  schema: JsonSchema | null | undefined,
  at: string,
): Promise<void> {
  if (schema === null || schema === undefined) return;
  let found: ReturnType<typeof schemaPatterns>;
  try {
    found = schemaPatterns(schema, at);
  } catch {
    return; // not plain JSON: the compile that follows says so
  }
  const distinct = new Map(found.map((p) => [p.pattern, p.where]));
  if (distinct.size > PATTERNS_MAX) {
    throw new ApiError(
      'invalid_request',
      `${at} holds ${distinct.size} distinct patterns; at most ${PATTERNS_MAX}`,
      { field: at },
    );
  }
  const deadline = AbortSignal.timeout(SCHEMA_DEADLINE_MS);
  const verdicts = await Promise.all(
    [...distinct].map(async ([pattern, where]) => ({
      pattern,
      where,
      why: verdict(pattern, await judge(pattern, deadline)),
    })),
  );
  const refused = verdicts.find((v) => v.why !== null);
  if (refused !== undefined) {
    throw new ApiError(
      'invalid_request',
      `${refused.where}: ${JSON.stringify(refused.pattern)} could stall the daemon on one long string (ReDoS): it ${refused.why}`,
      { field: at },
    );
  }
}

/** Why the pattern is refused, or null. */
function verdict(pattern: string, d: Diagnostics | 'late'): string | null {
  if (d === 'late') return 'was not judged in time; write it more simply';
  if (d.status === 'safe') return null;
  if (d.status === 'unknown') {
    switch (d.error.kind) {
      case 'invalid':
        // What V8 refuses too is the compile's to refuse, in its own words; a pattern only
        // recheck's parser refuses is one it could not judge.
        return compiles(pattern) ? 'could not be analysed; write it more simply' : null;
      case 'unsupported':
        return `uses what the checker cannot analyse (${d.error.message}); write it without that`;
      default:
        return 'could not be shown free of super-linear backtracking in time; write it more simply';
    }
  }
  if (d.complexity.type === 'exponential') {
    return `takes exponential time to fail on some strings (e.g. ${attack(d)})`;
  }
  return `takes time of degree ${d.complexity.degree} in the string's length to fail on some strings (e.g. ${attack(d)}); anchor it, or make its repetitions exclude each other`;
}

function compiles(pattern: string): boolean {
  try {
    new RegExp(pattern, 'u'); // as the validator compiles it
    return true;
  } catch {
    return false;
  }
}

/** The checker's attack string, as a JavaScript expression such as `'a'.repeat(31) + '!'`. */
function attack(d: VulnerableDiagnostics): string {
  const { pattern } = d.attack;
  return pattern.length > 120 ? `${pattern.slice(0, 117)}...` : pattern;
}

/** The pattern's judgement, or `late` once `deadline` passes; 503 when the checker fails. */
async function judge(pattern: string, deadline: AbortSignal): Promise<Diagnostics | 'late'> {
  const late = new Promise<'late'>((resolve) => {
    if (deadline.aborted) resolve('late');
    deadline.addEventListener('abort', () => resolve('late'), { once: true });
  });
  try {
    return await Promise.race([diagnose(pattern), late]);
  } catch {
    throw new ApiError(
      'not_ready',
      'the checker of schema patterns is not available; try again shortly',
    );
  }
}

function diagnose(pattern: string): Promise<Diagnostics> {
  const known = judged.get(pattern);
  if (known !== undefined) return known;
  // As the validator compiles it: `new RegExp(pattern, 'u')`.
  const judging = check(pattern, 'u', { timeout: CHECK_TIMEOUT_MS });
  if (judged.size >= CACHE_MAX) judged.delete(judged.keys().next().value as string);
  judged.set(pattern, judging);
  // A failure of the checker itself is not kept: the next schema asks again.
  judging.catch(() => {
    if (judged.get(pattern) === judging) judged.delete(pattern);
  });
  return judging;
}
