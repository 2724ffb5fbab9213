/** `anthropic`: Claude through `@ai-sdk/anthropic` (the Messages API, `POST {baseUrl}/messages`). */
import { createAnthropic } from '@ai-sdk/anthropic';
import type { LanguageModelV4 } from './scripted.ts';

export function createAnthropicModel(cfg: {
  model: string;
  apiKey: string;
  baseUrl: string;
}): LanguageModelV4 {
  return createAnthropic({ apiKey: cfg.apiKey, baseURL: cfg.baseUrl })(cfg.model);
}
