/**
 * A static check for the regular expressions a backtracking engine (V8's) can take exponential
 * or high-polynomial time on: a repeated group that itself holds an unbounded repetition, as in
 * `(a+)+`, `(\w*\s?)*` or `(.*x){20}` (star height two). A JSON Schema `pattern` is refused with
 * it when compiled (a match runs on the request's thread: one such pattern and a 30-character
 * string stall a server for a minute), and the daemon's transcript grep refuses these up front;
 * what this misses (overlapping alternatives such as `(a|a)*`, polynomial ones such as `\s+$`)
 * the daemon, which takes schemas from tokens, catches with a checker made for it (recheck), which
 * the kit cannot carry on every runtime.
 */

interface Frame {
  /** Index of the `(` that opened the group. */
  start: number;
  /** Whether anything inside repeats without bound. */
  unbounded: boolean;
}

/** A counted repetition at least this large is treated as unbounded when nested. */
const LARGE_COUNT = 10;

/**
 * The offending part of `pattern` (e.g. `(a+)+`) when it nests unbounded repetition, else null.
 * `pattern` must already compile as a RegExp.
 */
export function nestedRepetition(pattern: string): string | null {
  const stack: Frame[] = [{ start: -1, unbounded: false }];
  /** The group that just closed, if the previous atom was one: a quantifier applies to it. */
  let lastGroup: { start: number; unbounded: boolean } | null = null;
  let i = 0;
  while (i < pattern.length) {
    const ch = pattern[i]!;
    if (ch === '\\') {
      lastGroup = null;
      i += 2;
      continue;
    }
    if (ch === '[') {
      lastGroup = null;
      i = classEnd(pattern, i);
      continue;
    }
    if (ch === '(') {
      stack.push({ start: i, unbounded: false });
      lastGroup = null;
      i++;
      continue;
    }
    if (ch === ')') {
      const frame = stack.length > 1 ? stack.pop()! : { start: 0, unbounded: false };
      if (frame.unbounded) stack.at(-1)!.unbounded = true;
      lastGroup = { start: frame.start, unbounded: frame.unbounded };
      i++;
      continue;
    }
    const quantifier = quantifierAt(pattern, i);
    if (quantifier !== null) {
      if (quantifier.repeats && lastGroup?.unbounded) {
        return pattern.slice(lastGroup.start, quantifier.end);
      }
      if (quantifier.repeats) stack.at(-1)!.unbounded = true;
      lastGroup = null;
      // A lazy or possessive-looking suffix (`+?`) belongs to the quantifier.
      i = pattern[quantifier.end] === '?' ? quantifier.end + 1 : quantifier.end;
      continue;
    }
    lastGroup = null;
    i++;
  }
  return null;
}

/** The index just past the character class opening at `open`. */
function classEnd(pattern: string, open: number): number {
  let i = open + 1;
  if (pattern[i] === '^') i++;
  if (pattern[i] === ']') i++; // `[]]` in legacy syntax; `[]` matches nothing either way
  while (i < pattern.length && pattern[i] !== ']') i += pattern[i] === '\\' ? 2 : 1;
  return i + 1;
}

/**
 * The quantifier at `i`, if one starts there: whether it is unbounded (`*`, `+`, `{n,}`), whether
 * it repeats its atom many times (unbounded, or a count of at least `LARGE_COUNT`), and where it
 * ends.
 */
function quantifierAt(
  pattern: string,
  i: number,
): { unbounded: boolean; repeats: boolean; end: number } | null {
  const ch = pattern[i];
  if (ch === '*' || ch === '+') return { unbounded: true, repeats: true, end: i + 1 };
  if (ch === '?') return { unbounded: false, repeats: false, end: i + 1 };
  if (ch !== '{') return null;
  const counted = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i));
  if (counted === null) return null; // a literal `{`
  const min = Number(counted[1]);
  const max = counted[2] === undefined ? min : counted[3] === '' ? Infinity : Number(counted[3]);
  const unbounded = max === Infinity;
  return { unbounded, repeats: unbounded || max >= LARGE_COUNT, end: i + counted[0].length };
}
