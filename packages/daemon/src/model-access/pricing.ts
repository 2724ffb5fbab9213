/**
 * What a model turn cost, from a small table of list prices (USD per million tokens) for
 * well-known Anthropic and OpenAI models. A model not in the table costs `null`, never a guess:
 * local servers, the scripted provider and models newer than this table are simply not priced.
 */

interface Price {
  input: number;
  output: number;
}

/** Keyed by `family/model`, the model id without a date or `-latest` suffix. */
const PRICES = new Map<string, Price>([
  ['anthropic/claude-opus-4-5', { input: 5, output: 25 }],
  ['anthropic/claude-opus-4-1', { input: 15, output: 75 }],
  ['anthropic/claude-opus-4', { input: 15, output: 75 }],
  ['anthropic/claude-sonnet-4-5', { input: 3, output: 15 }],
  ['anthropic/claude-sonnet-4', { input: 3, output: 15 }],
  ['anthropic/claude-3-7-sonnet', { input: 3, output: 15 }],
  ['anthropic/claude-haiku-4-5', { input: 1, output: 5 }],
  ['anthropic/claude-3-5-haiku', { input: 0.8, output: 4 }],
  ['openai/gpt-5', { input: 1.25, output: 10 }],
  ['openai/gpt-5-mini', { input: 0.25, output: 2 }],
  ['openai/gpt-5-nano', { input: 0.05, output: 0.4 }],
  ['openai/gpt-4.1', { input: 2, output: 8 }],
  ['openai/gpt-4.1-mini', { input: 0.4, output: 1.6 }],
  ['openai/gpt-4.1-nano', { input: 0.1, output: 0.4 }],
  ['openai/gpt-4o', { input: 2.5, output: 10 }],
  ['openai/gpt-4o-mini', { input: 0.15, output: 0.6 }],
  ['openai/o3', { input: 2, output: 8 }],
  ['openai/o4-mini', { input: 1.1, output: 4.4 }],
]);

/** `claude-sonnet-4-5-20250929`, `gpt-4o-2024-08-06` and `claude-3-5-haiku-latest` name a base model. */
const VERSION_SUFFIX = /-(?:\d{8}|\d{4}-\d{2}-\d{2}|latest)$/;

/**
 * `provider` is the AI SDK model's provider string (`anthropic.messages`, `openai.responses`):
 * its first segment is the family.
 */
export function costUsd(
  provider: string,
  modelId: string,
  usage: { input_tokens: number; output_tokens: number },
): number | null {
  const family = provider.split('.')[0];
  const price = PRICES.get(`${family}/${modelId.replace(VERSION_SUFFIX, '')}`);
  if (price === undefined) return null;
  const usd = (usage.input_tokens * price.input + usage.output_tokens * price.output) / 1e6;
  // Whole nano-dollars: enough precision, and no float noise in recorded turns.
  return Math.round(usd * 1e9) / 1e9;
}
