import { describe, expect, it } from 'vitest';
import { costUsd } from '../../src/model-access/pricing.ts';

const MILLION = { input_tokens: 1_000_000, output_tokens: 1_000_000 };

describe('costUsd', () => {
  it('prices known models by their list price per million tokens', () => {
    expect(costUsd('anthropic.messages', 'claude-sonnet-4-5', MILLION)).toBe(3 + 15);
    expect(costUsd('openai.responses', 'gpt-4o-mini', MILLION)).toBe(0.15 + 0.6);
    expect(
      costUsd('anthropic.messages', 'claude-haiku-4-5', { input_tokens: 1234, output_tokens: 56 }),
    ).toBe(0.001514);
  });

  it('reads through date and -latest suffixes', () => {
    expect(costUsd('anthropic.messages', 'claude-sonnet-4-5-20250929', MILLION)).toBe(18);
    expect(costUsd('openai.chat', 'gpt-4o-2024-08-06', MILLION)).toBe(12.5);
    expect(costUsd('anthropic.messages', 'claude-3-5-haiku-latest', MILLION)).toBe(4.8);
  });

  it('answers null, never a guess, for anything not in the table', () => {
    expect(costUsd('anthropic.messages', 'claude-next-9', MILLION)).toBeNull();
    expect(costUsd('openai.responses', 'gpt-4o-audio-preview', MILLION)).toBeNull();
    expect(costUsd('ollama.chat', 'gpt-4o', MILLION)).toBeNull();
    expect(costUsd('scripted', 'demo', MILLION)).toBeNull();
    expect(costUsd('openai.responses', 'constructor', MILLION)).toBeNull();
  });
});
