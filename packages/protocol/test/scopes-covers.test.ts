import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ceilingViolation,
  covers,
  formatScope,
  listCovers,
  type ParsedScope,
  parseScope,
} from '../src/scopes/index.ts';
import { parsedScope, target } from './arbitraries.ts';

const scope = parsedScope.map(formatScope);
const runs = { numRuns: 500 };

describe('covers (properties)', () => {
  it('is reflexive', () => {
    fc.assert(
      fc.property(scope, (s) => covers(s, s)),
      runs,
    );
  });

  it('is transitive', () => {
    fc.assert(
      fc.property(
        scope,
        scope,
        scope,
        (a, b, c) => !(covers(a, b) && covers(b, c)) || covers(a, c),
      ),
      { numRuns: 3000 },
    );
  });

  it('is transitive over every chain in a sampled universe', () => {
    // Random triples rarely chain, so also check every a ⊇ b ⊇ c among a few hundred scopes.
    const universe = [...new Set(fc.sample(scope, { numRuns: 400, seed: 42 }))];
    const below = universe.map((a) => universe.filter((b) => covers(a, b)));
    let chains = 0;
    for (const [i, a] of universe.entries()) {
      for (const b of below[i] ?? []) {
        for (const c of below[universe.indexOf(b)] ?? []) {
          chains++;
          if (!covers(a, c)) expect.fail(`${a} ⊇ ${b} ⊇ ${c} but not ${a} ⊇ ${c}`);
        }
      }
    }
    expect(chains).toBeGreaterThan(1000);
  });

  it('never crosses kind, owner or target', () => {
    fc.assert(
      fc.property(parsedScope, parsedScope, (a, b) => {
        if (covers(formatScope(a), formatScope(b))) expect(target(a)).toBe(target(b));
      }),
      { numRuns: 2000 },
    );
  });

  it('never lets a sub-path cover its parent', () => {
    const withPath = parsedScope.filter(
      (p) => (p.kind === 'files' && p.dir !== '/') || (p.kind === 'memory' && 'path' in p),
    );
    fc.assert(
      fc.property(withPath, fc.constantFrom('z', 'a', 'ab'), (parent, seg) => {
        const child = structuredClone(parent) as ParsedScope & { dir?: string; path?: string };
        if (child.kind === 'files') child.dir = `${child.dir}/${seg}`;
        else child.path = `${child.path}/${seg}`;
        const [p, c] = [formatScope(parent), formatScope(child)];
        expect(covers(p, c)).toBe(true);
        expect(covers(c, p)).toBe(false);
      }),
      runs,
    );
  });

  it('never lets read cover rw', () => {
    const readable = parsedScope.filter(
      (p) => (p.kind === 'memory' || p.kind === 'files') && p.access === 'read',
    );
    fc.assert(
      fc.property(readable, (read) => {
        const rw = formatScope({ ...read, access: 'rw' } as ParsedScope);
        expect(covers(formatScope(read), rw)).toBe(false);
        expect(covers(rw, formatScope(read))).toBe(true);
      }),
      runs,
    );
  });

  it('is false, not a throw, for strings outside the vocabulary', () => {
    fc.assert(
      fc.property(fc.string(), scope, (junk, s) => {
        if (!covers(junk, junk)) {
          expect(covers(junk, s)).toBe(false);
          expect(covers(s, junk)).toBe(false);
        }
      }),
      runs,
    );
  });
});

describe('ceilingViolation (properties)', () => {
  it('agrees with listCovers', () => {
    const ceiling = fc.option(fc.array(scope, { maxLength: 5 }), { nil: null });
    fc.assert(
      fc.property(ceiling, fc.array(scope, { maxLength: 6 }), (held, requested) => {
        const v = ceilingViolation(held, requested);
        const first = requested.find((r) => !listCovers(held, r)) ?? null;
        expect(v).toBe(first);
        if (v === null) expect(requested.every((r) => listCovers(held, r))).toBe(true);
        else expect(listCovers(held, v)).toBe(false);
      }),
      { numRuns: 1000 },
    );
  });

  it('treats a null ceiling as the owner: everything', () => {
    fc.assert(
      fc.property(fc.array(scope), (r) => ceilingViolation(null, r) === null),
      runs,
    );
  });
});

describe('covers (rules)', () => {
  it.each([
    ['svc:files:rw:user:/a/b', 'svc:files:read:user:/a/b/c', true],
    ['svc:files:rw:user:/a/b', 'svc:files:read:user:/a/bc', false],
    ['svc:files:read:user:/', 'svc:files:read:user:/etc', true],
    ['svc:files:read:user:/a', 'svc:files:read:app:c:/a', false],
    ['svc:files:rw:app:c:/a', 'svc:files:read:app:c:/a/b', true],
    ['svc:files:rw:app:c:/a', 'svc:files:read:app:d:/a/b', false],
    ['svc:memory:manage:user', 'svc:memory:rw:user', true],
    ['svc:memory:manage:user', 'svc:memory:read:user:/notes/x', true],
    ['svc:memory:rw:user', 'svc:memory:manage:user', false],
    ['svc:memory:rw:user', 'svc:memory:read:user:/notes', true],
    ['svc:memory:read:user:/notes', 'svc:memory:read:user', false],
    ['svc:memory:read:user', 'svc:memory:rw:user', false],
    ['svc:memory:rw:app:c', 'svc:memory:read:app:c:profile:work', true],
    ['svc:memory:read:app:c:profile:work', 'svc:memory:read:app:c', false],
    ['svc:memory:read:app:c:profile:work', 'svc:memory:read:app:c:profile:home', false],
    ['svc:memory:rw:app', 'svc:memory:read:app', true],
    ['svc:memory:read:app', 'svc:memory:read:app:c', false],
    ['svc:memory:read:app:c', 'svc:memory:read:app', false],
    ['svc:act', 'svc:llm', false],
    ['svc:llm', 'svc:act', false],
    ['svc:files:share', 'svc:files:rw:user:/', false],
    ['svc:conversations:read:app:c', 'svc:objects:read:app:c', false],
    ['github:repos', 'github:issues', false],
    // canonical forms compare equal
    ['svc:files:read:user:/a//b/', 'svc:files:read:user:/a/b', true],
    ['svc:memory:read:user:notes', 'svc:memory:read:user:/notes', true],
  ])('covers(%s, %s) = %s', (held, wanted, expected) => {
    expect(covers(held, wanted)).toBe(expected);
  });

  it('listCovers: null is everything, [] is nothing', () => {
    expect(listCovers(null, 'svc:act')).toBe(true);
    expect(listCovers([], 'svc:llm')).toBe(false);
    expect(listCovers(['svc:llm', 'svc:files:rw:user:/w'], 'svc:files:read:user:/w/x')).toBe(true);
  });

  it('parses what it compares (sanity: generated scopes are valid)', () => {
    fc.assert(
      fc.property(scope, (s) => parseScope(s) !== undefined),
      { numRuns: 200 },
    );
  });
});
