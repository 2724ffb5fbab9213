import { describe, expect, it, vi } from 'vitest';
import {
  assertId,
  assertName,
  ERROR_STATUS,
  errorEnvelope,
  ID_PREFIXES,
  type IdKind,
  isErrorCode,
  isId,
  isName,
  newId,
  REQUEST_ID_HEADER,
} from '../src/index.ts';

describe('error envelope', () => {
  it('maps every code to its DESIGN §6 status', () => {
    expect(ERROR_STATUS).toMatchObject({
      invalid_request: 400,
      request_id_missing: 400,
      unauthorized: 401,
      scope_missing: 403,
      forbidden: 403,
      not_found: 404,
      method_not_allowed: 405,
      invalid_state: 409,
      conflict: 409,
      payload_too_large: 413,
      validation_failed: 422,
      rate_limited: 429,
      internal_error: 500,
      provider_error: 502,
      not_ready: 503,
      sandbox_unavailable: 503,
    });
    expect(Object.keys(ERROR_STATUS)).toHaveLength(16);
  });

  it('builds { error: { code, message, request_id } } and adds field/received only when given', () => {
    expect(errorEnvelope('not_found', 'no such token', 'req_1')).toEqual({
      error: { code: 'not_found', message: 'no such token', request_id: 'req_1' },
    });
    const env = errorEnvelope('scope_missing', 'needs svc:act', 'req_2', {
      field: 'svc:act',
      received: ['svc:llm'],
    });
    expect(env.error).toEqual({
      code: 'scope_missing',
      message: 'needs svc:act',
      request_id: 'req_2',
      field: 'svc:act',
      received: ['svc:llm'],
    });
    // `received: null` is information (e.g. the owner's list), so it is kept
    expect(errorEnvelope('forbidden', 'x', 'r', { received: null }).error).toHaveProperty(
      'received',
      null,
    );
    expect(errorEnvelope('forbidden', 'x', 'r', {}).error).not.toHaveProperty('received');
  });

  it('isErrorCode accepts known codes only (no prototype keys)', () => {
    expect(isErrorCode('conflict')).toBe(true);
    expect(isErrorCode('toString')).toBe(false);
    expect(isErrorCode(400)).toBe(false);
  });

  it('names the request id header', () => {
    expect(REQUEST_ID_HEADER).toBe('Svc-Request-Id');
  });
});

describe('ids', () => {
  const kinds = Object.keys(ID_PREFIXES) as IdKind[];

  it.each(kinds)('newId(%s) carries its prefix and a ULID, and passes isId', (kind) => {
    const id = newId(kind);
    expect(id.startsWith(ID_PREFIXES[kind])).toBe(true);
    expect(id).toHaveLength(ID_PREFIXES[kind].length + 26);
    expect(isId(kind, id)).toBe(true);
  });

  it('mints ids that sort in minting order within one millisecond (monotonic)', () => {
    const ids = Array.from({ length: 200 }, () => newId('node'));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('rejects another kind, a bad body and non-strings', () => {
    const run = newId('run');
    expect(isId('node', run)).toBe(false);
    expect(isId('node', `nd_${'0'.repeat(25)}`)).toBe(false); // 25 characters
    expect(isId('node', `nd_${'0'.repeat(27)}`)).toBe(false);
    expect(isId('node', `nd_${'0'.repeat(25)}U`)).toBe(false); // U is not Crockford
    expect(isId('node', `nd_8${'0'.repeat(25)}`)).toBe(false); // past the 48-bit time
    expect(isId('node', `nd_${newId('node').slice(3).toLowerCase()}`)).toBe(false);
    expect(isId('node', 42)).toBe(false);
    expect(isId('node', null)).toBe(false);
  });

  it('assertId throws a TypeError naming the argument, the kind and the value', () => {
    expect(() => assertId('node', 'run_x', 'nodeId')).toThrow(
      new TypeError('nodeId must be a node id (nd_ followed by 26 characters); received "run_x"'),
    );
    expect(() => assertId('cron', undefined, 'id')).toThrow(
      /id must be a cron id \(cron_ .*received undefined/,
    );
    expect(() => assertId('node', newId('node'), 'id')).not.toThrow();
  });

  it('names: lowercase letter first, a-z0-9- after, at most 63', () => {
    for (const ok of ['a', 'openai', 'my-app-2', `a${'b'.repeat(62)}`])
      expect(isName(ok)).toBe(true);
    for (const bad of ['', '1a', '-a', 'A', 'a_b', 'a b', `a${'b'.repeat(63)}`, 7]) {
      expect(isName(bad)).toBe(false);
    }
    expect(() => assertName('profile', 'Work', 'profile')).toThrow(
      /^profile must be a profile name .*received "Work"$/,
    );
    expect(() => assertName('provider', 'openai', 'provider')).not.toThrow();
  });
});

describe('newId randomness', () => {
  it('draws its random characters from the system a pool at a time, each id valid and distinct', () => {
    const spy = vi.spyOn(globalThis.crypto, 'getRandomValues');
    try {
      const ids = Array.from({ length: 2_000 }, () => newId('job'));
      // 2,000 ids × 16 random characters: one call per 4,096 bytes, not one per character.
      expect(spy.mock.calls.length).toBeLessThanOrEqual(9);
      expect(new Set(ids).size).toBe(ids.length);
      for (const id of ids) expect(isId('job', id)).toBe(true);
      expect([...ids].sort()).toEqual(ids);
    } finally {
      spy.mockRestore();
    }
  });
});
