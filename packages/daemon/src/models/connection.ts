import type { ModelConfig, ScriptedTurn } from '../model-access/providers/index.ts';
import { requireReady } from './readiness.ts';
import type { ModelChoice, ModelDeps } from './types.ts';

/**
 * Everything `createLanguageModel` needs for `choice`, stored credentials included: for a model
 * call in this process or a broker's launch message, nowhere else. A provider without what it
 * needs is 409 `invalid_state` with the command that fixes it.
 */
export function modelConnection(deps: Pick<ModelDeps, 'store'>, choice: ModelChoice): ModelConfig {
  requireReady(deps, choice);
  const { provider, model } = choice;
  if (provider === 'scripted') {
    // zod's output marks omitted fields `| undefined`; the turns are the same objects.
    return { provider, model, script: choice.script as ScriptedTurn[] };
  }
  const row = deps.store.models.credential(provider);
  return {
    provider,
    model,
    ...(row?.api_key != null && { apiKey: row.api_key }),
    ...(row?.base_url != null && { baseUrl: row.base_url }),
  };
}
