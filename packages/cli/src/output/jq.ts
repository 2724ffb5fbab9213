/**
 * `--jq EXPR`: the part of jq people use with `gh --jq` to pick fields out of an answer, with no
 * jq installed. Paths (`.`, `.a.b`, `.["a-b"]`, `.[0]`, `.[-1]`, `.[]`, `.a[].b`, a trailing `?`
 * is accepted and ignored), pipes (`|`), field selection (`{id, state}`, `{id, when: .created_at}`),
 * and `length`, `keys`. Each result is one line: a string raw, anything else as compact JSON.
 */
import { CliError, UsageError } from '../errors.ts';

export type Filter = (input: unknown) => unknown[];

/** Compiles `expr`; a malformed one is a usage error (exit 2), before anything is sent. */
export function compileJq(expr: string): Filter {
  const parser = new Parser(expr);
  const filter = parser.pipeline();
  parser.end();
  return filter;
}

/** The lines `--jq` prints for `value`. */
export function jqLines(filter: Filter, value: unknown): string[] {
  return filter(value).map((v) => (typeof v === 'string' ? v : (JSON.stringify(v) ?? 'null')));
}

class Parser {
  #at = 0;
  readonly #text: string;

  constructor(text: string) {
    this.#text = text;
  }

  pipeline(): Filter {
    let filter = this.term();
    while (this.#eat('|')) {
      const first = filter;
      const next = this.term();
      filter = (input) => first(input).flatMap(next);
    }
    return filter;
  }

  end(): void {
    this.#space();
    if (this.#at < this.#text.length) this.#fail(`unexpected '${this.#text[this.#at]}'`);
  }

  term(): Filter {
    this.#space();
    if (this.#peek('{')) return this.#object();
    if (this.#word('length')) return (v) => [lengthOf(v)];
    if (this.#word('keys')) return (v) => [keysOf(v)];
    if (!this.#peek('.')) this.#fail('a filter starts with . (e.g. .data[].id), { or length');
    return this.#path();
  }

  #path(): Filter {
    const steps: Filter[] = [];
    this.#at += 1; // the leading '.'
    const name = this.#name();
    if (name !== '') steps.push(field(name));
    for (;;) {
      if (this.#text[this.#at] === '.' && /[A-Za-z_"[]/.test(this.#text[this.#at + 1] ?? '')) {
        this.#at += 1;
        if (this.#text[this.#at] === '[') continue;
        const next = this.#name();
        if (next === '') this.#fail('a name after .');
        steps.push(field(next));
      } else if (this.#text[this.#at] === '[') {
        steps.push(this.#bracket());
      } else if (this.#text[this.#at] === '?') {
        this.#at += 1;
      } else break;
    }
    return (input) => steps.reduce<unknown[]>((values, step) => values.flatMap(step), [input]);
  }

  #bracket(): Filter {
    this.#at += 1;
    this.#space();
    if (this.#eat(']')) return iterate;
    const quoted = this.#string();
    if (quoted !== undefined) {
      this.#expect(']');
      return field(quoted);
    }
    const digits = /^-?\d+/.exec(this.#text.slice(this.#at))?.[0];
    if (digits === undefined) this.#fail('an index, a "key" or nothing inside [ ]');
    this.#at += digits.length;
    this.#expect(']');
    const index = Number(digits);
    return (v) => {
      if (v === null) return [null];
      if (!Array.isArray(v)) throw new CliError(`--jq: cannot index ${kind(v)} with a number`);
      return [v.at(index) ?? null];
    };
  }

  #object(): Filter {
    this.#at += 1;
    const entries: [string, Filter][] = [];
    for (;;) {
      this.#space();
      if (this.#eat('}')) break;
      const key = this.#string() ?? this.#name();
      if (key === '') this.#fail('a field name in { }');
      this.#space();
      entries.push([key, this.#eat(':') ? this.pipelineUntil() : field(key)]);
      this.#space();
      if (this.#eat('}')) break;
      this.#expect(',');
    }
    return (input) => {
      const out: Record<string, unknown> = {};
      for (const [key, filter] of entries) out[key] = filter(input)[0] ?? null;
      return [out];
    };
  }

  /** A value inside `{ key: … }`: one term or a pipe, up to `,` or `}`. */
  pipelineUntil(): Filter {
    return this.pipeline();
  }

  #name(): string {
    const found = /^[A-Za-z_][A-Za-z0-9_]*/.exec(this.#text.slice(this.#at))?.[0] ?? '';
    this.#at += found.length;
    return found;
  }

  #string(): string | undefined {
    if (this.#text[this.#at] !== '"') return undefined;
    const found = /^"((?:[^"\\]|\\.)*)"/.exec(this.#text.slice(this.#at));
    if (found === null) this.#fail('an unterminated string');
    this.#at += found[0].length;
    return JSON.parse(found[0]) as string;
  }

  #word(word: string): boolean {
    const rest = this.#text.slice(this.#at);
    if (!rest.startsWith(word) || /[A-Za-z0-9_]/.test(rest[word.length] ?? '')) return false;
    this.#at += word.length;
    return true;
  }

  #space(): void {
    while (/\s/.test(this.#text[this.#at] ?? '')) this.#at += 1;
  }

  #peek(char: string): boolean {
    this.#space();
    return this.#text[this.#at] === char;
  }

  #eat(char: string): boolean {
    if (!this.#peek(char)) return false;
    this.#at += 1;
    return true;
  }

  #expect(char: string): void {
    if (!this.#eat(char)) this.#fail(`expected '${char}'`);
  }

  #fail(why: string): never {
    throw new UsageError(`--jq: ${why} at column ${this.#at + 1} of '${this.#text}'`);
  }
}

function field(name: string): Filter {
  return (v) => {
    if (v === null || v === undefined) return [null];
    if (typeof v !== 'object' || Array.isArray(v)) {
      throw new CliError(`--jq: cannot read .${name} of ${kind(v)}`);
    }
    return [(v as Record<string, unknown>)[name] ?? null];
  };
}

function iterate(v: unknown): unknown[] {
  if (Array.isArray(v)) return v;
  if (v !== null && typeof v === 'object') return Object.values(v);
  throw new CliError(`--jq: cannot iterate over ${kind(v)}`);
}

function lengthOf(v: unknown): number {
  if (v === null) return 0;
  if (typeof v === 'string' || Array.isArray(v)) return v.length;
  if (typeof v === 'object') return Object.keys(v).length;
  if (typeof v === 'number') return Math.abs(v);
  throw new CliError(`--jq: ${kind(v)} has no length`);
}

function keysOf(v: unknown): string[] | number[] {
  if (Array.isArray(v)) return v.map((_, i) => i);
  if (v !== null && typeof v === 'object') return Object.keys(v).sort();
  throw new CliError(`--jq: ${kind(v)} has no keys`);
}

function kind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}
