import { describe, expect, it } from 'vitest';
import {
  formatMemorySpace,
  MEMORY_PATH_MAX,
  memoryListQuerySchema,
  memoryPathProblem,
  memoryWriteBodySchema,
  newId,
  parseMemorySpace,
  routeById,
} from '../src/index.ts';

describe('memory spaces', () => {
  it('parses user, app, app with profile and node spaces, and prints them back', () => {
    const node = newId('node');
    for (const [text, parsed] of [
      ['user', { owner: 'user' }],
      ['app:notes', { owner: 'app', appId: 'notes' }],
      ['app:notes:profile:work', { owner: 'app', appId: 'notes', profile: 'work' }],
      [`node:${node}`, { owner: 'node', nodeId: node }],
    ] as const) {
      expect(parseMemorySpace(text)).toEqual(parsed);
      expect(formatMemorySpace(parseMemorySpace(text)!)).toBe(text);
    }
  });

  it('refuses anything else', () => {
    for (const bad of [
      '',
      'users',
      'app',
      'app:',
      'app:Notes',
      'app:notes:profile',
      'app:notes:profile:',
      'app:notes:other:x',
      'node:nd_x',
      `node:${newId('cron')}`,
      ' user',
      42,
      null,
    ]) {
      expect(parseMemorySpace(bad), String(bad)).toBeNull();
    }
  });
});

describe('memory paths', () => {
  it('takes relative slash-separated paths', () => {
    for (const ok of [
      'a',
      'prefs/food.md',
      'my notes/a b.md',
      'a:b/c,d',
      'x'.repeat(MEMORY_PATH_MAX),
    ]) {
      expect(memoryPathProblem(ok), ok).toBeNull();
    }
  });

  it('says what is wrong with anything else', () => {
    expect(memoryPathProblem('')).toMatch(/empty/);
    expect(memoryPathProblem('/a')).toMatch(/relative/);
    expect(memoryPathProblem('a//b')).toMatch(/empty segments/);
    expect(memoryPathProblem('a/')).toMatch(/empty segments/);
    expect(memoryPathProblem('a/../b')).toMatch(/'\.\.'/);
    expect(memoryPathProblem('./a')).toMatch(/'\.'/);
    expect(memoryPathProblem('a\nb')).toMatch(/control/);
    // A right-to-left override makes `notes/\u202Etxt.exe` show as `notes/exe.txt`.
    for (const bidi of ['\u202E', '\u202A', '\u2066', '\u2069']) {
      expect(memoryPathProblem(`notes/${bidi}txt.exe`), bidi.codePointAt(0)?.toString(16)).toMatch(
        /control/,
      );
    }
    expect(memoryPathProblem('x'.repeat(MEMORY_PATH_MAX + 1))).toMatch(/at most/);
    expect(memoryPathProblem(3)).toMatch(/string/);
  });
});

describe('memory schemas and routes', () => {
  it('the write body is strict and the list query reads integers from strings', () => {
    expect(memoryWriteBodySchema.safeParse({ path: 'a', content: '' }).success).toBe(true);
    expect(memoryWriteBodySchema.safeParse({ path: 'a', content: '', x: 1 }).success).toBe(false);
    expect(memoryWriteBodySchema.safeParse({ path: '/a', content: '' }).success).toBe(false);
    expect(memoryListQuerySchema.parse({ limit: '5', after: 'p'.repeat(300) })).toMatchObject({
      limit: 5,
    });
  });

  it('every memory route takes any token: reads are filtered, writes checked by the daemon', () => {
    for (const id of ['memory.list', 'memory.get', 'memory.write', 'memory.delete'] as const) {
      expect(routeById(id).auth).toEqual({ kind: 'token' });
    }
    expect(routeById('memory.list').path).toBe('/v1/memory');
    expect(routeById('memory.get')).toMatchObject({ method: 'GET', path: '/v1/memory/document' });
  });
});
