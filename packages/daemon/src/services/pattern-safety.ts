/**
 * The regular expressions of a JSON Schema a token hands the daemon (`output_schema`,
 * `response_schema`, a custom object's event schemas) are matched on the thread that answers every
 * request. V8 backtracks, so one pattern such as `^(a|a)*b` or `\s+$` and one long string stall
 * the whole daemon (ReDoS). The kit's own compile-time check refuses only nested repetition; here
 * each pattern is proven free of super-linear backtracking by recheck (automata theory, with
 * fuzzing where the automaton would be too large), off the event loop, before the schema is taken.
 * A pattern whose cost is polynomial passes when its subschema's `maxLength` bounds the work.
 */
import type { JsonSchema } from '@svc/plugin-kit';
import { schemaPatterns } from '@svc/plugin-kit/json-schema';
import { check, type Diagnostics, type VulnerableDiagnostics } from 'recheck';
import { ApiError } from '../errors.ts';

/** How long one pattern may take to judge; one not judged in time is refused. */
const CHECK_TIMEOUT_MS = 3_000;
/** Backtracking steps (about n^degree) a polynomial pattern may take on its longest input. */
const STEP_BUDGET = 10_000_000;
/** Judgements kept, by pattern: a schema is usually sent again with the same patterns. */
const CACHE_MAX = 1_000;

const judged = new Map<string, Promise<Diagnostics>>();

/** Throws 400 `invalid_request` naming `field` when a pattern of `schema` can backtrack badly. */
export async function screenPatterns(
  schema: JsonSchema | null | undefined,
  at: string,
  field: string = at,
): Promise<void> {
  if (schema === null || schema === undefined) return;
  let patterns: ReturnType<typeof schemaPatterns>;
  try {
    patterns = schemaPatterns(schema, at);
  } catch {
    return; // not plain JSON: the compile that follows says so
  }
  for (const { pattern, where, maxLength } of patterns) {
    const why = verdict(await diagnose(pattern), maxLength);
    if (why !== null) {
      throw new ApiError(
        'invalid_request',
        `${where}: ${JSON.stringify(pattern)} could stall the daemon on one long string (ReDoS): it ${why}`,
        { field },
      );
    }
  }
}

/** Why the pattern is refused, or null. */
function verdict(d: Diagnostics, maxLength: number | undefined): string | null {
  if (d.status === 'safe') return null;
  if (d.status === 'unknown') {
    // A pattern the validator cannot compile is the compile's to refuse, in its own words.
    if (d.error.kind === 'invalid') return null;
    return 'could not be shown free of super-linear backtracking in time; write it more simply';
  }
  const { complexity } = d;
  if (complexity.type === 'exponential') {
    return `takes exponential time to fail on some strings (e.g. ${attack(d)})`;
  }
  if (maxLength !== undefined && maxLength ** complexity.degree <= STEP_BUDGET) return null;
  return `takes time of degree ${complexity.degree} in the string's length to fail on some strings (e.g. ${attack(d)}); anchor it, make its repetitions exclude each other, or bound it with a small maxLength`;
}

/** The checker's attack string, as a JavaScript expression such as `'a'.repeat(31) + '!'`. */
function attack(d: VulnerableDiagnostics): string {
  const { pattern } = d.attack;
  return pattern.length > 120 ? `${pattern.slice(0, 117)}...` : pattern;
}

function diagnose(pattern: string): Promise<Diagnostics> {
  const known = judged.get(pattern);
  if (known !== undefined) return known;
  // As the validator compiles it: `new RegExp(pattern, 'u')`.
  const judging = check(pattern, 'u', { timeout: CHECK_TIMEOUT_MS });
  if (judged.size >= CACHE_MAX) judged.delete(judged.keys().next().value as string);
  judged.set(pattern, judging);
  // A failure of the checker itself is not cached: the next schema asks again.
  judging.catch(() => judged.delete(pattern));
  return judging;
}
