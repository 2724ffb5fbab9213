/**
 * Model providers for brokers: one function that turns a node's model configuration into an AI SDK
 * language model, plus what the daemon shows about each provider.
 *
 * Public surface:
 * - `createLanguageModel(cfg)` → `LanguageModelV4`, ready for `runModelTurn` (../model-turn.ts).
 *   `cfg.provider` is one of `PROVIDERS[].id`; a bad or missing option throws a `TypeError` that
 *   names it. `baseUrl` defaults to the provider's public API (`anthropic`, `openai`) and is
 *   required for `openai-compatible`; it includes the version segment (`http://host:port/v1`).
 *   No setting is read from the environment: the key and URL given are the ones used.
 * - `PROVIDERS`: `{ id, label, needsKey, offline }` for each provider, for listings and readiness.
 * - `ScriptedTurn`: one turn of a `scripted` model's script (see ./scripted.ts for how turns are
 *   chosen).
 *
 * Wire protocols, all through the AI SDK: `anthropic` → `POST {baseUrl}/messages`; `openai` →
 * `POST {baseUrl}/responses`; `openai-compatible` → `POST {baseUrl}/chat/completions`;
 * `scripted` → nothing leaves the process.
 */
import { createAnthropicModel } from './anthropic.ts';
import { createOpenAIModel } from './openai.ts';
import { createOpenAICompatibleModel } from './openai-compatible.ts';
import { createScriptedModel, type LanguageModelV4, type ScriptedTurn } from './scripted.ts';

export type { LanguageModelV4, ScriptedTurn };

export interface ProviderInfo {
  id: string;
  /** What a person sees; `scripted` says plainly that it is not a real model. */
  label: string;
  /** An API key is required. */
  needsKey: boolean;
  /** Runs with no network at all. */
  offline: boolean;
}

export const PROVIDERS = [
  { id: 'anthropic', label: 'Anthropic', needsKey: true, offline: false },
  { id: 'openai', label: 'OpenAI', needsKey: true, offline: false },
  {
    id: 'openai-compatible',
    label: 'OpenAI-compatible server (Ollama, llama.cpp, vLLM)',
    needsKey: false,
    offline: false,
  },
  {
    id: 'scripted',
    label: 'Scripted replay (offline, deterministic; not a real model)',
    needsKey: false,
    offline: true,
  },
] as const satisfies readonly ProviderInfo[];

export type ProviderId = (typeof PROVIDERS)[number]['id'];

export interface ModelConfig {
  provider: ProviderId;
  model: string;
  apiKey?: string;
  baseUrl?: string;
  /** The turns a `scripted` model replays (required for it, ignored by the others). */
  script?: ScriptedTurn[];
  /** The provider name an `openai-compatible` model reports (default `openai-compatible`). */
  name?: string;
}

const DEFAULT_BASE_URL: Partial<Record<ProviderId, string>> = {
  anthropic: 'https://api.anthropic.com/v1',
  openai: 'https://api.openai.com/v1',
};

export function isProviderId(value: unknown): value is ProviderId {
  return PROVIDERS.some((p) => p.id === value);
}

function required<T>(value: T | undefined, option: string, provider: string): T {
  if (value === undefined || value === '') {
    throw new TypeError(`createLanguageModel: \`${option}\` is required for provider ${provider}`);
  }
  return value;
}

export function createLanguageModel(cfg: ModelConfig): LanguageModelV4 {
  const { provider, model } = cfg;
  if (!isProviderId(provider)) {
    const known = PROVIDERS.map((p) => p.id).join(', ');
    throw new TypeError(`createLanguageModel: unknown \`provider\` ${String(provider)} (${known})`);
  }
  if (typeof model !== 'string' || model === '') {
    throw new TypeError('createLanguageModel: `model` must be a non-empty string');
  }
  const baseUrl = cfg.baseUrl ?? DEFAULT_BASE_URL[provider];
  switch (provider) {
    case 'anthropic':
    case 'openai': {
      const settings = {
        model,
        apiKey: required(cfg.apiKey, 'apiKey', provider),
        baseUrl: required(baseUrl, 'baseUrl', provider),
      };
      return provider === 'anthropic'
        ? createAnthropicModel(settings)
        : createOpenAIModel(settings);
    }
    case 'openai-compatible':
      return createOpenAICompatibleModel({
        model,
        baseUrl: required(baseUrl, 'baseUrl', provider),
        name: cfg.name ?? provider,
        ...(cfg.apiKey !== undefined && { apiKey: cfg.apiKey }),
      });
    case 'scripted':
      return createScriptedModel(model, required(cfg.script, 'script', provider));
  }
}
