import type { ModelService } from '../models/service.ts';
import type { ProfileService } from '../profiles/service.ts';
import { withDeps } from '../with-deps.ts';
import { createLlmCall } from './create.ts';

/** `/v1/llm` as the object the rest of the daemon calls. */
export function llmService(models: ModelService, profiles: ProfileService) {
  return { create: withDeps({ models, profiles }, createLlmCall) };
}

export type LlmService = ReturnType<typeof llmService>;
