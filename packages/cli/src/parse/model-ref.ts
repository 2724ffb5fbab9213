import { MODEL_PROVIDERS, type ModelProvider } from '@svc/protocol';
import { UsageError } from '../errors.ts';

/**
 * `provider/model`, e.g. `anthropic/claude-sonnet-4-5` or `openai-compatible/llama3.2`. Split at
 * the first `/`: model ids may hold more (`openai-compatible/meta-llama/Llama-3.1-8B`).
 */
export function parseModelRef(
  text: string,
  flag: string,
): { provider: ModelProvider; model: string } {
  const slash = text.indexOf('/');
  const provider = text.slice(0, slash);
  const model = text.slice(slash + 1);
  if (slash <= 0 || model === '' || !(MODEL_PROVIDERS as readonly string[]).includes(provider)) {
    throw new UsageError(
      `${flag} must be PROVIDER/MODEL with PROVIDER one of ${MODEL_PROVIDERS.join(', ')}; received '${text}'`,
    );
  }
  return { provider: provider as ModelProvider, model };
}
