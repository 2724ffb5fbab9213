import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  formatScope,
  LEGACY_SCOPES,
  parseScope,
  parseScopeList,
  ScopeError,
  tryParseScope,
} from '../src/scopes/index.ts';
import { parsedScope } from './arbitraries.ts';

function reasonOf(s: string): string {
  const r = tryParseScope(s);
  if (r.ok) throw new Error(`expected '${s}' to be rejected`);
  return r.reason;
}

describe('parseScope: the vocabulary', () => {
  it.each([
    ['svc:llm', { kind: 'llm' }],
    ['svc:act', { kind: 'act' }],
    ['svc:schedule', { kind: 'schedule' }],
    ['svc:files:share', { kind: 'files-share' }],
    ['svc:memory:read:user', { kind: 'memory', owner: 'user', access: 'read' }],
    [
      'svc:memory:rw:user:/notes/a',
      { kind: 'memory', owner: 'user', access: 'rw', path: '/notes/a' },
    ],
    ['svc:memory:manage:user', { kind: 'memory', owner: 'user', access: 'manage' }],
    ['svc:memory:read:app', { kind: 'memory', owner: 'app', access: 'read', appId: null }],
    ['svc:memory:rw:app', { kind: 'memory', owner: 'app', access: 'rw', appId: null }],
    ['svc:memory:read:app:mail', { kind: 'memory', owner: 'app', access: 'read', appId: 'mail' }],
    [
      'svc:memory:rw:app:mail:profile:work',
      { kind: 'memory', owner: 'app', access: 'rw', appId: 'mail', profile: 'work' },
    ],
    [
      'svc:files:read:user:/home/me',
      { kind: 'files', owner: 'user', access: 'read', dir: '/home/me' },
    ],
    [
      'svc:files:rw:app:mail:/srv/x:y',
      { kind: 'files', owner: 'app', access: 'rw', appId: 'mail', dir: '/srv/x:y' },
    ],
    ['svc:conversations:read:app:mail', { kind: 'conversations', appId: 'mail' }],
    ['svc:objects:read:app:mail', { kind: 'objects', appId: 'mail' }],
    ['github:repos', { kind: 'provider', provider: 'github', group: 'repos' }],
  ])('%s', (s, parsed) => {
    expect(parseScope(s)).toEqual(parsed);
    expect(formatScope(parseScope(s))).toBe(s);
  });

  it.each([
    ['', 'empty'],
    [' svc:llm', 'whitespace'],
    ['svc', "expected 'svc:…'"],
    ['svc:', 'unknown family'],
    ['svc:ask', 'unknown family'],
    ['svc:llm:x', 'takes no suffix'],
    ['svc:memory:write:user', 'memory access'],
    ['svc:memory:read:team', 'memory owner'],
    ['svc:memory:manage:user:/x', 'takes no path'],
    ['svc:memory:manage:app:x', "'manage' applies only"],
    ['svc:memory:read:app:Mail', 'not a valid app name'],
    ['svc:memory:read:app:x:prof:y', ':profile:<profile>'],
    ['svc:memory:read:app:x:profile:', 'profile'],
    ['svc:memory:read:user:/a/../b', "'..'"],
    ['svc:files:read:user', 'needs a directory'],
    ['svc:files:read:user:relative/dir', 'absolute'],
    ['svc:files:rw:user:/a/..', "'..'"],
    ['svc:files:rw:user:/a b', 'whitespace'],
    ['svc:files:rw:user:/a,b', 'commas'],
    ['svc:files:rw:app::/a', 'valid app id'],
    ['svc:files:write:user:/a', 'files access'],
    ['svc:files:share:x', 'no suffix'],
    ['svc:conversations:rw:app:x', "'svc:conversations:read:app:<id>'"],
    ['svc:objects:read:app', "'svc:objects:read:app:<id>'"],
    ['GitHub:repos', 'lowercase'],
    ['github', "'<provider>:<group>'"],
    ['github:repos:extra', "'<provider>:<group>'"],
    ['github:', 'lowercase'],
    [`svc:files:read:user:/${'a'.repeat(2000)}`, 'longer than'],
  ])('rejects %j with a reason (%s)', (s, fragment) => {
    const reason = reasonOf(s);
    expect(reason).toContain(fragment);
    expect(() => parseScope(s)).toThrow(ScopeError);
  });

  it('normalizes directories: repeated slashes, "." segments, a trailing slash', () => {
    expect(formatScope(parseScope('svc:files:rw:user://a/./b//c/'))).toBe(
      'svc:files:rw:user:/a/b/c',
    );
    expect(formatScope(parseScope('svc:files:read:user:/'))).toBe('svc:files:read:user:/');
    expect(formatScope(parseScope('svc:memory:read:user:notes/'))).toBe(
      'svc:memory:read:user:/notes',
    );
    expect(formatScope(parseScope('svc:memory:read:user:/'))).toBe('svc:memory:read:user');
  });

  it("refuses '..' anywhere, even where it would resolve inside", () => {
    for (const dir of ['/a/../a', '/..', '/a/b/..', '/../etc']) {
      expect(reasonOf(`svc:files:read:user:${dir}`)).toContain("'..'");
    }
    // a segment merely containing dots is a name
    expect(parseScope('svc:files:read:user:/a/..b/c..')).toMatchObject({ dir: '/a/..b/c..' });
  });

  it('ScopeError carries the scope and reason; message is the reason', () => {
    try {
      parseScope('svc:nope');
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ScopeError);
      expect(e).toBeInstanceOf(TypeError);
      const err = e as ScopeError;
      expect(err.scope).toBe('svc:nope');
      expect(err.message).toBe(err.reason);
      expect(err.name).toBe('ScopeError');
    }
  });
});

describe('parseScope (properties)', () => {
  it('round-trips its own canonical strings', () => {
    fc.assert(
      fc.property(parsedScope, (p) => {
        const s = formatScope(p);
        expect(parseScope(s)).toEqual(p);
        expect(formatScope(parseScope(s))).toBe(s);
      }),
      { numRuns: 1000 },
    );
  });

  it('rejects arbitrary strings with a reason, or accepts them stably', () => {
    const strings = fc.oneof(
      fc.string(),
      fc.string().map((s) => `svc:${s}`),
      parsedScope.chain((p) =>
        fc
          .tuple(fc.constantFrom(':', ':x', ' ', '/..', 'X'), fc.boolean())
          .map(([junk, front]) =>
            front ? `${junk}${formatScope(p)}` : `${formatScope(p)}${junk}`,
          ),
      ),
    );
    fc.assert(
      fc.property(strings, (s) => {
        const r = tryParseScope(s);
        if (r.ok) {
          // whatever is accepted has a canonical form that parses to the same thing
          expect(parseScope(formatScope(r.scope))).toEqual(r.scope);
        } else {
          expect(r.reason.length).toBeGreaterThan(10);
          expect(() => parseScope(s)).toThrow(r.reason);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('rejects random text outside the vocabulary', () => {
    // Upper case, spaces or a second colon never occur in the provider form.
    const junk = fc
      .string({ minLength: 1 })
      .filter((s) => /[A-Z\s]|:.*:/.test(s) && !s.startsWith('svc:'));
    fc.assert(
      fc.property(junk, (s) => !tryParseScope(s).ok),
      { numRuns: 1000 },
    );
  });
});

describe('legacy short names', () => {
  it.each(Object.entries(LEGACY_SCOPES))('%s → rejected, naming %s', (legacy, replacement) => {
    expect(replacement.startsWith('svc:')).toBe(true);
    expect(parseScope(replacement)).toBeDefined();
    const expected = `'${legacy}' is a retired short name; use '${replacement}'`;
    expect(reasonOf(legacy)).toBe(expected);
    expect(() => parseScopeList([legacy])).toThrow(expected);
    expect(() => parseScopeList(`svc:llm, ${legacy}`)).toThrow(ScopeError);
  });

  it('covers exactly the names the spec retires', () => {
    expect(Object.keys(LEGACY_SCOPES).sort()).toEqual(
      ['act', 'ask', 'llm', 'memory:read', 'memory:write', 'schedule'].sort(),
    );
    expect(reasonOf('llm')).toBe("'llm' is a retired short name; use 'svc:llm'");
  });
});

describe('parseScopeList', () => {
  it('accepts an array or a comma/space separated string; trims, dedupes, canonicalizes', () => {
    expect(parseScopeList(' svc:llm,svc:act  svc:llm ,, svc:files:read:user:/a/ ')).toEqual([
      'svc:llm',
      'svc:act',
      'svc:files:read:user:/a',
    ]);
    expect(parseScopeList(['svc:llm', ' svc:llm ', '', 'svc:files:read:user:/a//'])).toEqual([
      'svc:llm',
      'svc:files:read:user:/a',
    ]);
    expect(parseScopeList('')).toEqual([]);
    expect(parseScopeList([])).toEqual([]);
  });

  it("refuses 'svc:act' without 'svc:llm'", () => {
    expect(() => parseScopeList(['svc:act'])).toThrow("'svc:act' requires 'svc:llm'");
    expect(() => parseScopeList('svc:act svc:schedule')).toThrow(ScopeError);
    expect(parseScopeList('svc:act svc:llm')).toEqual(['svc:act', 'svc:llm']);
  });

  it('names the first bad entry', () => {
    try {
      parseScopeList(['svc:llm', 'svc:files:rw:user:/a/../b', 'svc:nope']);
      expect.unreachable();
    } catch (e) {
      expect((e as ScopeError).scope).toBe('svc:files:rw:user:/a/../b');
    }
  });

  it('refuses a non-string entry with a ScopeError', () => {
    expect(() => parseScopeList([42 as unknown as string])).toThrow(ScopeError);
  });
});
