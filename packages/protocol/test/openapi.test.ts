/**
 * `GET /v1/openapi.json` is what clients in other languages are generated from (issue 26, item
 * 9): a valid OpenAPI 3.1 document, whose schemas are as tight as the daemon's checks (bounds as
 * keywords, not prose; what a `.refine` checks as `uniqueItems`, `minProperties`, a grammar),
 * whose streams are described where OpenAPI 3.1 reads them, and whose patterns every common
 * regex engine reads alike. That each route lists every status it answers is the daemon's route
 * fuzz's check (packages/daemon/test/route-fuzz.test.ts), against a running daemon.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import fc from 'fast-check';
import { RE2 } from 're2-wasm';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  buildOpenApiDocument,
  formatScope,
  memoryPathProblem,
  type RouteDef,
  routes,
  SCOPE_PATTERN,
  tryParseScope,
  uploadFilenameSchema,
} from '../src/index.ts';
import { SPACE_OR_CONTROL } from '../src/text.ts';
import { parsedScope } from './arbitraries.ts';

type Json = Record<string, unknown>;
interface Operation {
  parameters: { name: string; in: string; schema: Json }[];
  requestBody?: { content: Record<string, { schema: Json }> };
  responses: Record<string, Json>;
}

const doc = buildOpenApiDocument() as {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Json> };
};
const table: readonly RouteDef[] = routes;
const op = (method: string, path: string) => {
  const found = doc.paths[path]?.[method];
  if (found === undefined) throw new Error(`${method} ${path} is not documented`);
  return found;
};
const bodyOf = (method: string, path: string) =>
  op(method, path).requestBody?.content['application/json']?.schema as {
    properties: Record<string, Json>;
  } & Json;

/** Every regular expression of the document: `pattern`s and `patternProperties` names. */
function patternsOf(value: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const v of value) patternsOf(v, out);
  else if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      if (k === 'pattern' && typeof v === 'string') out.add(v);
      if (k === 'patternProperties' && typeof v === 'object' && v !== null) {
        for (const name of Object.keys(v)) out.add(name);
      }
      patternsOf(v, out);
    }
  }
  return out;
}

describe('the document', () => {
  it('is valid OpenAPI 3.1 by the specification schema', async () => {
    const result = await new Validator().validate(structuredClone(doc));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('lists the statuses every route shares, and those of its parts', () => {
    for (const route of table) {
      const statuses = Object.keys(op(route.method.toLowerCase(), route.path).responses);
      const label = `${route.method} ${route.path}`;
      for (const status of ['200', '400', '403', '431', '500', '503']) {
        expect(statuses, label).toContain(status);
      }
      if (route.auth.kind !== 'public') expect(statuses, label).toContain('401');
      if (route.params !== undefined) expect(statuses, label).toContain('404');
      if (route.params !== undefined || route.query !== undefined || route.body !== undefined) {
        expect(statuses, label).toContain('422');
      }
      // A body is read with one limit; an Idempotency-Key may be sent again with another.
      if (route.method !== 'GET') expect(statuses, label).toContain('413');
      const replays = route.method !== 'GET' && route.auth.kind !== 'public';
      if (replays) expect(statuses, label).toContain('409');
      const header = op(route.method.toLowerCase(), route.path).parameters.find(
        (p) => p.name === 'Idempotency-Key',
      );
      expect(header !== undefined, label).toBe(replays);
    }
  });

  it('names the codes of each error status', () => {
    const llm = op('post', '/v1/llm').responses;
    expect(llm['429']).toMatchObject({ description: expect.stringContaining('rate_limited') });
    expect(llm['409']?.description).toMatch(/invalid_state.*conflict|conflict.*invalid_state/);
    expect(op('get', '/v1/nodes/{id}/outcome').responses['409']).toMatchObject({
      $ref: '#/components/responses/Error',
      description: expect.stringContaining('invalid_state'),
    });
    expect(op('get', '/v1/status').responses).not.toHaveProperty('409');
  });
});

describe('schemas as tight as the checks', () => {
  it('a query integer is an integer with its bounds, which the daemon keeps exactly', () => {
    let seen = 0;
    for (const route of table) {
      const shape = (route.query?.shape ?? {}) as Record<string, z.ZodType>;
      for (const param of op(route.method.toLowerCase(), route.path).parameters) {
        if (param.in !== 'query' || param.schema.type !== 'integer') continue;
        seen++;
        const { minimum, maximum } = param.schema as { minimum: number; maximum: number };
        expect(typeof minimum, `${route.id} ${param.name}`).toBe('number');
        const check = (v: number) => shape[param.name]!.safeParse(String(v)).success;
        expect([check(minimum), check(maximum)], `${route.id} ${param.name}`).toEqual([true, true]);
        expect([check(minimum - 1), check(maximum + 1)]).toEqual([false, false]);
      }
    }
    expect(seen).toBeGreaterThan(20);
    const limit = op('get', '/v1/tokens').parameters.find((p) => p.name === 'limit');
    expect(limit?.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 200 });
    const ttl = op('get', '/v1/attachments/link').parameters.find((p) => p.name === 'ttl_s');
    expect(ttl?.schema).toMatchObject({ type: 'integer', minimum: 1 });
    expect(ttl?.schema).not.toHaveProperty('pattern');
    const follow = op('get', '/v1/events').parameters.find((p) => p.name === 'follow');
    expect(follow?.schema).toMatchObject({ type: 'boolean' });
  });

  it('says what a .refine checks: each item once, at least one key, at most so many', () => {
    expect(bodyOf('post', '/v1/nodes/revive-all').properties.states).toMatchObject({
      uniqueItems: true,
    });
    expect(bodyOf('post', '/v1/human/requests').properties.options).toMatchObject({
      uniqueItems: true,
    });
    expect(bodyOf('patch', '/v1/nodes/{id}')).toMatchObject({ minProperties: 1 });
    expect(bodyOf('post', '/v1/custom-objects').properties.events).toMatchObject({
      minProperties: 1,
      maxProperties: 100,
    });
    expect(bodyOf('patch', '/v1/nodes/{id}').properties.metadata).toMatchObject({
      maxProperties: 16,
    });
  });

  it('a scope carries the grammar of the vocabulary', () => {
    const scopes = bodyOf('post', '/v1/connect').properties.scopes as { items: Json };
    expect(scopes.items).toMatchObject({ pattern: SCOPE_PATTERN, maxLength: 1024 });
  });
});

describe('the scope grammar', () => {
  const grammar = new RegExp(SCOPE_PATTERN);

  it('takes every scope the parser takes', () => {
    fc.assert(
      fc.property(parsedScope, (parsed) => {
        const scope = formatScope(parsed);
        expect(grammar.test(scope), scope).toBe(true);
      }),
    );
    const near = fc.stringMatching(/^(svc:)?[a-z:/.,_ -]{0,40}$/);
    fc.assert(
      fc.property(near, (s) => {
        if (tryParseScope(s).ok) expect(grammar.test(s), s).toBe(true);
      }),
      { numRuns: 2000 },
    );
    for (const scope of ['svc:memory:read:user:notes:2026', 'svc:memory:rw:user:', 'gmail:read']) {
      expect(tryParseScope(scope).ok, scope).toBe(true);
      expect(grammar.test(scope), scope).toBe(true);
    }
  });

  it('refuses what the parser refuses by shape', () => {
    for (const scope of [
      '',
      'svc:llm:x',
      'svc:files:read:user:relative',
      'svc:files:read:user:/a b',
      'svc:files:read:user:/a,b',
      `svc:files:read:user:/a\u202eb`,
      'svc:memory:manage:user:/x',
      'svc:memory:read:app:',
      'svc:objects:read:app',
      'Gmail:read',
      'gmail',
      ' svc:llm',
    ]) {
      expect(tryParseScope(scope).ok, scope).toBe(false);
      expect(grammar.test(scope), scope).toBe(false);
    }
  });
});

describe('a pattern said for a .refine takes exactly what the check takes', () => {
  const text = fc.string({
    unit: fc.constantFrom('a', 'b', '.', '/', '\\', ' ', '\u0007', '\u009f', '\u202e', 'é'),
    maxLength: 8,
  });
  const judge = (schema: Json) => {
    const pattern = new RegExp(schema.pattern as string);
    const not = (schema.not as { enum?: string[] } | undefined)?.enum ?? [];
    return (v: string) => pattern.test(v) && !not.includes(v) && v.length >= 1;
  };

  it("a memory document's path: relative, no empty, '.' or '..' segment, no control", () => {
    const schema = bodyOf('put', '/v1/memory/document').properties.path as Json;
    const documented = judge(schema);
    fc.assert(
      fc.property(text, (path) => {
        expect(documented(path), JSON.stringify(path)).toBe(memoryPathProblem(path) === null);
      }),
      { numRuns: 3000 },
    );
  });

  it("an upload's file name: no / or \\, no control, not . or ..", () => {
    const schema = bodyOf('post', '/v1/uploads').properties.filename as Json;
    const documented = judge(schema);
    fc.assert(
      fc.property(text, (name) => {
        const taken = uploadFilenameSchema.safeParse(name).success;
        expect(documented(name), JSON.stringify(name)).toBe(taken);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('patterns every common engine reads alike', () => {
  const patterns = [...patternsOf(doc)];

  it('holds none of ECMAScript-only or engine-specific syntax', () => {
    expect(patterns.length).toBeGreaterThan(20);
    // \0 and \uNNNN are ECMAScript's; \p{..} is not in every engine; \s is ASCII-only in RE2;
    // RE2 has no lookaround or backreference.
    const unportable =
      /\\0|\\[pP]\{|\\u[0-9a-fA-F{]|\\x\{|\\[sS]|\(\?<?[=!]|\(\?<[A-Za-z]|\\[1-9]|\\k</;
    expect(patterns.filter((p) => unportable.test(p))).toEqual([]);
    // What the document held before (issue 26): each is caught.
    for (const bad of ['^\\/[^\\0]*$', '^[^\\s\\p{Cc}]+$', '^[\\u2028]$', '^(?!x)', '(a)\\1']) {
      expect(unportable.test(bad), bad).toBe(true);
    }
    expect(unportable.test('^[^\\x00-\\x20]+$')).toBe(false);
  });

  it('compiles in ECMAScript (with and without the u flag) and in RE2', () => {
    for (const pattern of patterns) {
      expect(() => new RegExp(pattern), pattern).not.toThrow();
      expect(() => new RegExp(pattern, 'u'), pattern).not.toThrow();
      expect(() => new RE2(pattern, 'u'), pattern).not.toThrow();
    }
  });

  it('the portable class of spaces and controls is the set \\s and \\p{Cc} name, in RE2 too', () => {
    const portable = new RegExp(`^[${SPACE_OR_CONTROL}]$`);
    const re2 = new RE2(`^[${SPACE_OR_CONTROL}]$`, 'u');
    const ecma = /^[\s\p{Cc}]$/u;
    for (let code = 0; code <= 0xffff; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const c = String.fromCharCode(code);
      if (portable.test(c) !== ecma.test(c)) throw new Error(`U+${code.toString(16)} differs`);
    }
    for (const c of [' ', '\t', '\u00a0', '\u2028', '\u3000', '\ufeff', '\x00', '\x9f']) {
      expect(re2.test(c), `U+${c.charCodeAt(0).toString(16)}`).toBe(true);
    }
    for (const c of ['a', '/', '\u00a1', '\u200b', '\u{1f600}']) expect(re2.test(c), c).toBe(false);
  });
});

describe('event streams', () => {
  it('are text/event-stream, each data: a component schema named where generators read it', () => {
    const streams = table.filter((r) => r.stream === 'sse');
    expect(streams.length).toBeGreaterThan(0);
    for (const route of streams) {
      const ok = op('get', route.path).responses['200'] as {
        content: Record<string, Json>;
      };
      expect(Object.keys(ok.content)).toEqual(['text/event-stream']);
      const media = ok.content['text/event-stream']!;
      expect(media.schema).toEqual({ type: 'string', contentMediaType: 'text/event-stream' });
      const ref = (media['x-svc-event-data'] as { $ref: string }).$ref;
      const name = ref.replace('#/components/schemas/', '');
      const event = doc.components.schemas[name];
      expect(event?.type ?? event?.anyOf, route.id).toBeDefined();
    }
  });

  it('a stream that ends once what it follows is settled lists its 204', () => {
    expect(op('get', '/v1/nodes/{id}/stream').responses).toHaveProperty('204');
    expect(op('get', '/v1/runs/{id}/stream').responses).toHaveProperty('204');
    expect(op('get', '/v1/events').responses).not.toHaveProperty('204');
  });
});
