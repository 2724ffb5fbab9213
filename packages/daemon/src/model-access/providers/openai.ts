/**
 * `openai`: OpenAI through `@ai-sdk/openai`, whose default model speaks the Responses API
 * (`POST {baseUrl}/responses`).
 */
import { createOpenAI } from '@ai-sdk/openai';
import { defaultSettingsMiddleware, wrapLanguageModel } from 'ai';
import type { LanguageModelV4 } from './scripted.ts';

export function createOpenAIModel(cfg: {
  model: string;
  apiKey: string;
  baseUrl: string;
}): LanguageModelV4 {
  return wrapLanguageModel({
    model: createOpenAI({ apiKey: cfg.apiKey, baseURL: cfg.baseUrl })(cfg.model),
    // `store: false` makes every request carry the whole conversation. With the SDK's default
    // (`store: true`) earlier turns are sent as `item_reference`s to OpenAI's server-side copy,
    // which a broker relaunched from our own recorded history must not depend on.
    middleware: defaultSettingsMiddleware({
      settings: { providerOptions: { openai: { store: false } } },
    }),
  });
}
