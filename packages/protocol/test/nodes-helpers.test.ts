import { describe, expect, it } from 'vitest';
import {
  availableTools,
  BUILTIN_TOOLS,
  DEFAULT_BUDGETS,
  exhaustedBudget,
  mergeBudgets,
  resolveNodeScopes,
} from '../src/index.ts';

describe('resolveNodeScopes (SPEC: node scope list and bearer ceiling)', () => {
  const app = ['svc:llm', 'svc:act', 'svc:files:rw:user:/work'];

  it("omitted → the creator's ceiling; the owner's is everything (null)", () => {
    expect(resolveNodeScopes(undefined, null)).toEqual({ ok: true, scopes: null });
    expect(resolveNodeScopes(undefined, app)).toEqual({ ok: true, scopes: app });
    expect(resolveNodeScopes(undefined, null, ['svc:llm'])).toEqual({
      ok: true,
      scopes: ['svc:llm'],
    });
  });

  it('omitted, an inherited list must still lie inside the grant (a wider token of the app)', () => {
    expect(resolveNodeScopes(undefined, ['svc:llm'], ['svc:llm', 'svc:act'])).toEqual({
      ok: true,
      scopes: ['svc:llm'],
    });
    expect(resolveNodeScopes(undefined, ['svc:llm', 'svc:schedule'], ['svc:llm'])).toEqual({
      ok: false,
      code: 'scope_missing',
      message: "scope 'svc:schedule' is outside the app's grant",
      field: 'svc:schedule',
      received: ['svc:llm'],
    });
  });

  it('supplied → canonical, and inside the ceiling (narrower paths are inside)', () => {
    expect(resolveNodeScopes(['svc:llm', 'svc:files:read:user:/work//src/'], app)).toEqual({
      ok: true,
      scopes: ['svc:llm', 'svc:files:read:user:/work/src'],
    });
    expect(resolveNodeScopes([], app)).toEqual({ ok: true, scopes: [] });
    expect(resolveNodeScopes(['svc:schedule'], null)).toEqual({
      ok: true,
      scopes: ['svc:schedule'],
    });
  });

  it('a scope outside the creator → 403 scope_missing naming it and the ceiling', () => {
    expect(resolveNodeScopes(['svc:llm', 'svc:files:rw:user:/'], app)).toEqual({
      ok: false,
      code: 'scope_missing',
      message: "scope 'svc:files:rw:user:/' is outside the creator's ceiling",
      field: 'svc:files:rw:user:/',
      received: app,
    });
  });

  it("for a run, also inside the app's grant", () => {
    const r = resolveNodeScopes(['svc:llm', 'svc:act'], null, ['svc:llm']);
    expect(r).toMatchObject({
      ok: false,
      code: 'scope_missing',
      field: 'svc:act',
      received: ['svc:llm'],
    });
    expect(r.ok === false && r.message).toContain("the app's grant");
  });

  it('a malformed or legacy list → 400 invalid_request with the reason', () => {
    expect(resolveNodeScopes(['llm'], null)).toMatchObject({
      ok: false,
      code: 'invalid_request',
      field: 'scopes',
      received: 'llm',
      message: "'llm' is a retired short name; use 'svc:llm'",
    });
    expect(resolveNodeScopes(['svc:act'], null)).toMatchObject({
      ok: false,
      code: 'invalid_request',
      message: "'svc:act' requires 'svc:llm' in the same scope list",
    });
  });
});

describe('budgets', () => {
  const usage = { turns: 3, input_tokens: 900, output_tokens: 100, cost_usd: 0.25 };

  it('nothing reached under the limits, or with none', () => {
    expect(exhaustedBudget({ max_turns: 4, max_tokens: 1001, max_cost_usd: 1 }, usage)).toBeNull();
    expect(
      exhaustedBudget({ max_turns: null, max_tokens: null, max_cost_usd: null }, usage),
    ).toBeNull();
  });

  it('names the first budget reached, at the limit, in words', () => {
    expect(exhaustedBudget({ max_turns: 3, max_tokens: null, max_cost_usd: null }, usage)).toEqual({
      budget: 'max_turns',
      reason:
        'budget reached: 3 of 3 turns used (max_turns); raise it with nodes.update to continue',
    });
    expect(
      exhaustedBudget({ max_turns: null, max_tokens: 1000, max_cost_usd: 0.1 }, usage)?.budget,
    ).toBe('max_tokens');
    expect(
      exhaustedBudget({ max_turns: null, max_tokens: null, max_cost_usd: 0.25 }, usage)?.reason,
    ).toBe(
      'budget reached: 0.2500 of 0.25 USD used (max_cost_usd); raise it with nodes.update to continue',
    );
  });

  it('merge: omitted keeps, null removes, a number sets', () => {
    expect(mergeBudgets(DEFAULT_BUDGETS, undefined)).toEqual(DEFAULT_BUDGETS);
    expect(mergeBudgets(DEFAULT_BUDGETS, { max_turns: null, max_cost_usd: 2 })).toEqual({
      max_turns: null,
      max_tokens: null,
      max_cost_usd: 2,
    });
    expect(DEFAULT_BUDGETS.max_turns).toBe(100);
  });
});

describe('availableTools', () => {
  const plugins = ['github:issues', 'github:repos'];

  it('the owner (null) gets every built-in and plugin group', () => {
    expect(availableTools(null, null, plugins)).toEqual([
      ...Object.keys(BUILTIN_TOOLS),
      ...plugins,
    ]);
  });

  it('svc:act gates bash, the file tools, spawn, message and ask_human; a plugin group needs its own scope', () => {
    expect(availableTools(['svc:llm', 'github:issues'], null, plugins)).toEqual([
      'wait',
      'yield',
      'report',
      'submit',
      'memory_read',
      'memory_list',
      'memory_write',
      'github:issues',
    ]);
    expect(availableTools(['svc:llm', 'svc:act'], null, plugins)).toEqual([
      'bash',
      'read_file',
      'write_file',
      'list_files',
      'spawn',
      'message',
      'ask_human',
      'wait',
      'yield',
      'report',
      'submit',
      'memory_read',
      'memory_list',
      'memory_write',
    ]);
    // A files scope alone offers no file tool: they act through routes svc:act gates.
    expect(availableTools(['svc:llm', 'svc:files:rw:user:/tmp'], null, plugins)).not.toContain(
      'read_file',
    );
  });

  it("the profile's allow-list cuts further, never widens", () => {
    expect(availableTools(['svc:llm'], ['bash', 'submit'], plugins)).toEqual(['submit']);
    expect(availableTools(null, [], plugins)).toEqual([]);
  });
});
