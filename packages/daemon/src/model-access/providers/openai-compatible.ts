/**
 * `openai-compatible`: any server that speaks OpenAI's Chat Completions protocol
 * (`POST {baseUrl}/chat/completions`): Ollama, llama.cpp's server, vLLM, …
 */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModelV4 } from './scripted.ts';

export function createOpenAICompatibleModel(cfg: {
  model: string;
  baseUrl: string;
  name: string;
  apiKey?: string;
}): LanguageModelV4 {
  return createOpenAICompatible({
    name: cfg.name,
    baseURL: cfg.baseUrl,
    // Local servers usually need no key; sending none is then the honest request.
    ...(cfg.apiKey !== undefined && { apiKey: cfg.apiKey }),
    // Asks for `stream_options.include_usage`, so streamed turns report their token usage.
    includeUsage: true,
  }).chatModel(cfg.model);
}
