import { rmSync } from 'node:fs';
import { DEFAULT_BUDGETS } from '@svc/protocol';
import { afterAll, describe, expect, it } from 'vitest';
import type { ProfileRow } from '../src/profiles/store.ts';
import { openStore } from '../src/store/index.ts';
import { tempHome } from './helpers.ts';

const home = tempHome();
const store = openStore(`${home}/svc.db`);
afterAll(() => {
  store.db.close();
  rmSync(home, { recursive: true, force: true });
});

/** A column as SQLite holds it. */
function stored(table: string, column: string, where: string, key: unknown): unknown {
  const row = store.db.sqlite.prepare(`SELECT ${column} AS v FROM ${table} WHERE ${where} = ?`);
  return (row.get(key as string) as { v: unknown }).v;
}

function profile(name: string, over: Partial<ProfileRow> = {}): ProfileRow {
  return {
    name,
    description: null,
    model: { provider: 'scripted', model: 'echo', script: [{ text: 'hi' }] },
    system_prompt: null,
    tools: ['bash'],
    scopes: null,
    budgets: DEFAULT_BUDGETS,
    workspace: { repo: '/tmp/repo', base: null },
    network: 'host',
    command_env: null,
    app_id: null,
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
    ...over,
  };
}

describe('the stores of models and profiles give typed rows, not JSON text', () => {
  it('parse a profile’s JSON columns, and store them as JSON (a plain network as its word)', () => {
    store.profiles.upsert(profile('p1'));
    store.profiles.upsert(profile('p2', { network: { allow: ['example.com'] }, tools: null }));
    expect(store.profiles.get('p1')).toEqual(profile('p1'));
    expect(store.profiles.list('p', 10, null).map((r) => r.network)).toEqual([
      'host',
      { allow: ['example.com'] },
    ]);
    expect(stored('profiles', 'network', 'name', 'p1')).toBe('host');
    expect(stored('profiles', 'network', 'name', 'p2')).toBe('{"allow":["example.com"]}');
    expect(stored('profiles', 'tools', 'name', 'p1')).toBe('["bash"]');
    expect(stored('profiles', 'tools', 'name', 'p2')).toBeNull();
    expect(stored('profiles', 'budgets', 'name', 'p1')).toBe(JSON.stringify(DEFAULT_BUDGETS));
  });

  it('parse the model configuration, and store it as JSON', () => {
    expect(store.models.config()).toBeUndefined();
    const config = {
      default_model: { provider: 'openai' as const, model: 'gpt-5' },
      profiles: { p1: { provider: 'anthropic' as const, model: 'claude-sonnet-4-5' } },
      updated_at: '2026-01-01T00:00:00.000Z',
    };
    store.models.setConfig(config);
    expect(store.models.config()).toEqual(config);
    expect(stored('model_config', 'default_model', 'id', 1)).toBe(
      '{"provider":"openai","model":"gpt-5"}',
    );
    store.models.setConfig({ ...config, default_model: null });
    expect(store.models.config()?.default_model).toBeNull();
    expect(stored('model_config', 'default_model', 'id', 1)).toBeNull();
  });
});
